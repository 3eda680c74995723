import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { ExtractiveLLM, HashingEmbedder, readDocuments, VectorStoreIndex } from "ragsynth";
import { describe, expect, it } from "vitest";
import { BENCH_CORPUS, benchQuestionSubset, holdsPhrase } from "../../src/eval/bench-questions.test.util.js";
import { runCli } from "./run-cli.js";

// `ragsynth eval` offline must reproduce the bench's quality figures (bench/quality.mjs) exactly: Recall@4 is
// "a labelled file's basename among the first 4 chunks", the phrase figure "the compact ExtractiveLLM answer holds
// the phrase, case and whitespace ignored". Here those rules are computed the bench's way through the library,
// question by question, on a fixed subset of the bench's questions over its small corpus, and compared with the
// CLI's --json. The corpus is built by `node bench/lib/corpus.mjs small` (CI builds it before the tests; a missing
// corpus fails under CI=true rather than skip).

const CORPUS = BENCH_CORPUS;
const built = existsSync(CORPUS);
if (!built && process.env.CI === "true") {
  throw new Error(
    "CI=true but the bench's small corpus is not built: run node bench/lib/corpus.mjs small first.",
  );
}

describe.skipIf(!built)("ragsynth eval reproduces the bench's Recall@4 and phrase figures", () => {
  // The default retrieval (BM25); src/eval/bench-parity.test.ts checks both retrievals through the library.
  for (const mode of ["lexical"] as const) {
    it(`on a fixed subset of the bench's questions (${mode})`, async () => {
      const subset = benchQuestionSubset(); // 15 of 58, fixed
      // The bench reads the corpus by its path relative to the working folder, as the CLI does.
      const dir = relative(process.cwd(), CORPUS);
      const { documents } = await readDocuments([dir]);
      const embedModel = new HashingEmbedder({ applyIdf: "query", corpus: documents.map((d) => d.text) });
      const index = await VectorStoreIndex.fromDocuments(documents, { embedModel });
      const top = index.asRetriever({ similarityTopK: 4, retrievalMode: mode });
      const engine = index.asQueryEngine({
        llm: new ExtractiveLLM(),
        responseMode: "compact",
        similarityTopK: 4,
        retrievalMode: mode,
      });
      const bench: Array<{ id: string; recallAt4: boolean; inAnswer: boolean }> = [];
      for (const question of subset) {
        const ranked = await top.retrieve({ query: question.question });
        const response = await engine.query({ query: question.question });
        bench.push({
          id: question.id,
          recallAt4: ranked.some(({ node }) =>
            question.files.includes(basename(String(node.metadata.file_path ?? ""))),
          ),
          inAnswer: holdsPhrase(response.response, question.phrase),
        });
      }

      const work = await mkdtemp(join(tmpdir(), "ragsynth-eval-parity-"));
      try {
        const file = join(work, "questions.jsonl");
        await writeFile(
          file,
          subset
            .map((question) =>
              JSON.stringify({
                id: question.id,
                query: question.question,
                relevant: question.files,
                answer_hint: question.phrase,
              }),
            )
            .join("\n"),
        );
        const { code, stdout, stderr } = await runCli(
          [
            "eval",
            file,
            dir,
            "--modes",
            "compact",
            "--retrieval",
            mode,
            "--cache-dir",
            join(work, "cache"),
            "--json",
          ],
          { cwd: process.cwd() },
        );
        expect(code, stderr).toBe(0);
        const report = JSON.parse(stdout) as {
          retrieval: { hitRate: number };
          modes: Array<{ phraseShare: number }>;
          questions: Array<{
            id: string;
            retrieval: { hit: number };
            answers: Array<{ holdsPhrase: boolean }>;
          }>;
        };
        const evaluated = report.questions.map((question) => ({
          id: question.id,
          recallAt4: question.retrieval.hit === 1,
          inAnswer: question.answers[0]?.holdsPhrase === true,
        }));
        expect(evaluated).toEqual(bench);
        const share = (pick: (row: (typeof bench)[number]) => boolean) =>
          bench.filter(pick).length / bench.length;
        expect(report.retrieval.hitRate).toBe(share((row) => row.recallAt4));
        expect(report.modes[0]?.phraseShare).toBe(share((row) => row.inAnswer));
        // Not a vacuous match: some answers hold the phrase and some do not.
        expect(bench.some((row) => row.inAnswer) && bench.some((row) => !row.inAnswer)).toBe(true);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    }, 300_000);
  }
});
