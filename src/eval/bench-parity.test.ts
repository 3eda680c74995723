import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { ExtractiveLLM } from "../extractive/extractive-llm.js";
import { VectorStoreIndex } from "../index-store/vector-store-index.js";
import { readDocuments } from "../reader/read-documents.js";
import type { RetrievalMode } from "../retrieval/retriever.js";
import {
  BENCH_CORPUS,
  type BenchQuestion,
  benchQuestionSubset,
  holdsPhrase,
} from "./bench-questions.test.util.js";
import { evaluate } from "./evaluate.js";

// eval must reproduce the bench's quality figures (bench/quality.mjs): Recall@4 is "a labelled file's basename is
// among the first 4 of the top 10", the phrase figure is "the compact ExtractiveLLM answer holds the phrase, case
// and whitespace ignored". Here those rules are computed the bench's way, question by question, and compared
// with evaluate(): on the example docs always, and on a fixed subset of the bench's own questions when its
// corpus has been built (`node bench/lib/corpus.mjs`).

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

async function compare(dir: string, questions: BenchQuestion[], mode: RetrievalMode) {
  const { documents } = await readDocuments([dir]);
  const embedModel = new HashingEmbedder({
    applyIdf: "query",
    corpus: documents.map((document) => document.text),
  });
  const index = await VectorStoreIndex.fromDocuments(documents, { embedModel });
  const deep = index.asRetriever({ similarityTopK: 10, retrievalMode: mode });
  const engine = index.asQueryEngine({
    llm: new ExtractiveLLM(),
    responseMode: "compact",
    similarityTopK: 4,
    retrievalMode: mode,
  });
  const bench = [];
  for (const question of questions) {
    const ranked = await deep.retrieve({ query: question.question });
    const rank = ranked.findIndex(({ node }) =>
      question.files.includes(basename(String(node.metadata.file_path ?? ""))),
    );
    const response = await engine.query({ query: question.question });
    bench.push({
      id: question.id,
      recallAt4: rank >= 0 && rank < 4,
      inAnswer: holdsPhrase(response.response, question.phrase),
    });
  }
  const report = await evaluate({
    questions: questions.map((question) => ({
      id: question.id,
      query: question.question,
      relevant: question.files,
      answer_hint: question.phrase,
    })),
    retriever: index.asRetriever({ similarityTopK: 4, retrievalMode: mode }),
    llm: new ExtractiveLLM(),
    modes: ["compact"],
    k: 4,
  });
  const evaluated = report.questions.map((question) => ({
    id: question.id,
    recallAt4: question.retrieval?.hit === 1,
    inAnswer: question.answers[0]?.holdsPhrase === true,
  }));
  return { bench, evaluated, report };
}

const EXAMPLE_QUESTIONS: BenchQuestion[] = [
  {
    id: "default-mode",
    question: "What is the default response mode?",
    files: ["response-modes.md"],
    phrase: "compact",
  },
  {
    id: "optimizer",
    question: "What does the sentence optimizer remove?",
    files: ["optimizer.md"],
    phrase: "sentences",
  },
  {
    id: "stream",
    question: "When does the token usage of a stream become known?",
    files: ["streaming.txt"],
    phrase: "has ended",
  },
  {
    id: "budget",
    question: "How much of the window is reserved for the answer?",
    files: ["token-budget.md"],
    phrase: "numOutput",
  },
  { id: "nowhere", question: "Which database ships with it?", files: ["database.md"], phrase: "postgres" },
];

describe("eval reproduces the bench's Recall@4 and phrase rules", () => {
  for (const mode of ["lexical", "dense"] as const) {
    it(`on the example docs (${mode})`, async () => {
      const { bench, evaluated, report } = await compare(
        join(ROOT, "examples", "docs"),
        EXAMPLE_QUESTIONS,
        mode,
      );
      expect(evaluated).toEqual(bench);
      // Not a vacuous match: some questions hit and some miss.
      expect(bench.some((row) => row.recallAt4) && bench.some((row) => !row.recallAt4)).toBe(true);
      expect(report.retrieval?.hitRate).toBe(bench.filter((row) => row.recallAt4).length / bench.length);
    });
  }

  it.skipIf(!existsSync(BENCH_CORPUS))(
    "on a fixed subset of the bench's questions (its small corpus)",
    async () => {
      const subset = benchQuestionSubset(); // 15 of 58, fixed
      const { bench, evaluated, report } = await compare(BENCH_CORPUS, subset, "lexical");
      expect(evaluated).toEqual(bench);
      expect(report.modes[0]?.phraseShare).toBe(bench.filter((row) => row.inAnswer).length / bench.length);
    },
    120_000,
  );
});
