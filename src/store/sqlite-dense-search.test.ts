import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { LEXICAL_ANALYZER, lexicalDocumentTerms } from "../analysis/lexical-tokens.js";
import { TextNode } from "../schema/text-node.js";
import type { ScoredKey, SourceEdit, SyncIndexStore } from "./index-store.js";
import { openSqliteStore, SQLITE_INDEX_FILE } from "./open-sqlite-store.js";
import { SQLITE_STORE_VERSION } from "./sqlite-schema.js";
import { useTempDirs } from "./temp-dir.test.util.js";

const META = { embedderId: "test", storeVectors: true, analyzer: LEXICAL_ANALYZER, splitter: "test" };
const tempDir = useTempDirs("dense");

function gaussian(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

const DIMENSIONS = 96;
const gauss = gaussian(11);
const CENTRES = Array.from({ length: 40 }, () => Float32Array.from({ length: DIMENSIONS }, gauss));
/** A clustered vector: one of 40 centres plus noise. */
function vectorNear(centre: number): Float32Array {
  return Float32Array.from(
    CENTRES[centre % CENTRES.length] as Float32Array,
    (value) => value + 0.9 * gauss(),
  );
}

/** `files` documents of `perFile` chunks, each chunk with its own clustered vector. */
function documents(files: number, perFile: number, prefix = "doc"): SourceEdit[] {
  return Array.from({ length: files }, (_, file) => {
    const id = `${prefix}-${file}.md`;
    return {
      source: { id, contentHash: `${id}-hash` },
      chunks: Array.from({ length: perFile }, (_, index) => ({
        node: new TextNode({ id: `${id}#${index}`, text: `chunk ${index} of ${id}` }),
        contentHash: `${id}#${index}`,
        terms: lexicalDocumentTerms(`chunk ${index} of ${id}`),
        embedding: vectorNear(file * perFile + index),
        holdsImage: false,
      })),
    };
  });
}

/** The exact answer: cosine with every stored vector (the store's scan), best first, ties by key. */
function exactTopK(store: SyncIndexStore, query: Float32Array, topK: number): ScoredKey[] {
  const hits: ScoredKey[] = [];
  let queryNorm = 0;
  for (const value of query) queryNorm += value * value;
  for (const { keys, vectors } of store.allVectors()) {
    vectors.forEach((vector, row) => {
      let dot = 0;
      let norm = 0;
      vector.forEach((value, d) => {
        dot += value * (query[d] as number);
        norm += value * value;
      });
      hits.push({ key: keys[row] as number, score: dot / Math.sqrt(norm * queryNorm) });
    });
  }
  return hits.sort((a, b) => b.score - a.score || a.key - b.key).slice(0, topK);
}

function denseTopK(store: SyncIndexStore, query: Float32Array, topK: number): ScoredKey[] {
  const hits = store.read(() => store.denseTopK?.(query, topK));
  if (!hits) throw new Error("expected the store to search its codes");
  return hits;
}

describe("SQLite dense search over vector codes", () => {
  it("is exact while the store holds no more vectors than it rescores", () => {
    const store = openSqliteStore(tempDir());
    store.reset(META);
    store.write(documents(40, 10)); // 400 vectors
    for (const centre of [0, 7, 33]) {
      const query = vectorNear(centre);
      const hits = denseTopK(store, query, 10);
      const exact = exactTopK(store, query, 10);
      expect(hits.map((hit) => hit.key)).toEqual(exact.map((hit) => hit.key));
      for (const [rank, hit] of hits.entries())
        expect(hit.score).toBeCloseTo((exact[rank] as ScoredKey).score, 5);
    }
    store.close();
  });

  it("finds ≥ 95% of the exact top 10 over 6,000 vectors, with exact scores, and none of a removed document", () => {
    const store = openSqliteStore(tempDir());
    store.reset(META);
    store.write(documents(300, 20)); // 6,000 vectors over two pages of codes
    const queries = Array.from({ length: 20 }, (_, index) => vectorNear(index * 3));
    const recall = () => {
      let found = 0;
      for (const query of queries) {
        const exact = exactTopK(store, query, 10);
        const hits = denseTopK(store, query, 10);
        const scores = new Map(exact.map((hit) => [hit.key, hit.score]));
        for (const hit of hits)
          if (scores.has(hit.key)) expect(hit.score).toBeCloseTo(scores.get(hit.key) as number, 5);
        found += hits.filter((hit) => scores.has(hit.key)).length;
      }
      return found / (queries.length * 10);
    };
    expect(recall()).toBeGreaterThanOrEqual(0.95);

    // Remove half the documents and re-add some as new ones: the codes follow the edits.
    const removed = Array.from({ length: 150 }, (_, file) => `doc-${file * 2}.md`);
    const removedKeys = new Set(
      removed.flatMap((id) => store.sourceNodeIds(id).map((nodeId) => store.chunkByNodeId(nodeId)?.key)),
    );
    store.write(documents(50, 20, "new"), removed);
    for (const query of queries)
      expect(denseTopK(store, query, 10).some((hit) => removedKeys.has(hit.key))).toBe(false);
    expect(recall()).toBeGreaterThanOrEqual(0.95);
    store.close();
  });

  it("answers undefined, for the caller's scan, when the query's length is not the vectors'", () => {
    const store = openSqliteStore(tempDir());
    store.reset(META);
    store.write(documents(2, 3));
    expect(store.read(() => store.denseTopK?.(new Float32Array(DIMENSIONS + 40).fill(1), 3))).toBeUndefined();
    store.close();
  });

  it("answers undefined for a sparse query (its sign code says little), so the caller scores every vector", () => {
    const store = openSqliteStore(tempDir());
    store.reset(META);
    store.write(documents(2, 3));
    // A hashing embedder's vector: a few non-zero slots of many.
    const sparse = new Float32Array(DIMENSIONS);
    for (const slot of [3, 17, 40, 41, 90]) sparse[slot] = slot % 2 === 0 ? 0.5 : -0.25;
    expect(store.read(() => store.denseTopK?.(sparse, 3))).toBeUndefined();
    // Half its components non-zero is dense enough.
    const half = Float32Array.from({ length: DIMENSIONS }, (_, d) => (d % 2 === 0 ? 1 - d / DIMENSIONS : 0));
    expect(store.read(() => store.denseTopK?.(half, 3))).toHaveLength(3);
    store.close();
  });

  it(`migrates a layout 3 file when opened: its vectors copied to a table with rowids, their codes written, the layout ${SQLITE_STORE_VERSION}`, () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    store.write(documents(60, 10));
    const query = vectorNear(5);
    const before = denseTopK(store, query, 4);
    store.close();
    // What a layout 3 file is: no codes table, vectors WITHOUT ROWID, no bytes hash on the sources rows.
    const db = new Database(path.join(dir, SQLITE_INDEX_FILE));
    db.exec(`DROP TABLE vector_codes;
      ALTER TABLE sources DROP COLUMN bytes_hash;
      ALTER TABLE vectors RENAME TO old_vectors;
      CREATE TABLE vectors (content_hash TEXT PRIMARY KEY, embedding BLOB NOT NULL) WITHOUT ROWID;
      INSERT INTO vectors SELECT content_hash, embedding FROM old_vectors;
      DROP TABLE old_vectors;`);
    db.pragma("user_version = 3");
    const vectors = db.prepare("SELECT content_hash, embedding FROM vectors ORDER BY content_hash").all();
    db.close();

    const reopened = openSqliteStore(dir);
    expect(denseTopK(reopened, query, 4)).toEqual(before);
    reopened.close();
    const check = new Database(path.join(dir, SQLITE_INDEX_FILE), { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(SQLITE_STORE_VERSION);
    expect(check.prepare("SELECT count(*) FROM vector_codes").pluck().get()).toBe(1);
    expect(check.prepare("SELECT content_hash, embedding FROM vectors ORDER BY content_hash").all()).toEqual(
      vectors,
    );
    expect(check.prepare("SELECT sql FROM sqlite_master WHERE name = 'vectors'").pluck().get()).not.toMatch(
      /WITHOUT ROWID/,
    );
    check.close();
  });
});
