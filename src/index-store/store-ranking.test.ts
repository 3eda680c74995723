import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDocuments } from "../reader/read-documents.js";
import { createStoreLexicalSearch } from "../store/store-lexical-search.js";
import { openStore } from "./store-index.js";
import { VectorStoreIndex } from "./vector-store-index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
// A fixed subset of real text that ships with the repository, and the bench's labelled quality questions.
const CORPUS = ["examples/docs", "docs", "README.md", "CHANGELOG.md", "SECURITY.md", "bench/README.md"];

let dir: string;
let questions: string[];
let memory: VectorStoreIndex;
let stored: VectorStoreIndex;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ragsynth-ranking-"));
  const raw = JSON.parse(await readFile(path.join(ROOT, "bench/quality/questions.json"), "utf8")) as {
    question: string;
  }[];
  questions = [
    ...raw.map((entry) => entry.question),
    "What is the default response mode?",
    "How do I stream the answer?",
    "Which token budget does compact use?",
    "v2.9.1 keepAliveTimeout --cache-dir",
  ];
  const { documents } = await readDocuments(
    CORPUS.map((entry) => path.join(ROOT, entry)),
    {},
  );
  memory = await VectorStoreIndex.fromDocuments(documents);
  stored = await VectorStoreIndex.fromDocumentsCached(documents, { cacheDir: dir });
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("BM25 on the SQLite store ranks as the in-memory LexicalIndex does", () => {
  it("gives the same top 4 chunks with the same scores for every quality question (raw BM25)", async () => {
    const store = openStore(dir);
    const search = createStoreLexicalSearch(store);
    let compared = 0;
    for (const question of questions) {
      const expected = memory.lexicalIndex.search(question, { topK: 4 });
      const got = await search.search(question, { topK: 4 });
      expect(
        got.map((hit) => hit.id),
        question,
      ).toEqual(expected.map((hit) => hit.id));
      for (const [rank, hit] of got.entries()) {
        expect(hit.score).toBeCloseTo(expected[rank]?.score ?? Number.NaN, 9);
      }
      if (expected.length > 0) compared++;
    }
    await store.close();
    // Most questions match something in this corpus: the comparison is not over empty lists.
    expect(compared).toBeGreaterThan(questions.length / 2);
  });

  it("gives the same top 4 through the retriever (path and same-file evidence on top of BM25)", async () => {
    for (const question of questions) {
      const expected = await memory.asRetriever({ similarityTopK: 4 }).retrieve({ query: question });
      const got = await stored.asRetriever({ similarityTopK: 4 }).retrieve({ query: question });
      expect(
        got.map(({ node }) => node.id),
        question,
      ).toEqual(expected.map(({ node }) => node.id));
    }
  });
});
