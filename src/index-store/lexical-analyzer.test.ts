import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LEXICAL_ANALYZER } from "../analysis/lexical-tokens.js";
import { TextNode } from "../schema/text-node.js";
import { INDEX_FILE_NAME } from "./store-index.js";
import { VectorStoreIndex } from "./vector-store-index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ragsynth-analyzer-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const documents = [
  new TextNode({
    id: "a.md",
    text: "# Retries\n\nThe client waits, then sends the request again.",
    metadata: {},
  }),
  new TextNode({
    id: "b.md",
    text: "Retries are logged. The client waits, then sends the request.",
    metadata: {},
  }),
];

/** Runs SQL on the index file with the engine's own driver, as a user with `sqlite3` would. */
function sql<T>(run: (db: Database.Database) => T): T {
  const db = new Database(path.join(dir, INDEX_FILE_NAME));
  try {
    return run(db);
  } finally {
    db.close();
  }
}

const analyzer = () =>
  Number(sql((db) => db.prepare("SELECT value FROM meta WHERE key = 'analyzer'").pluck().get()));

describe("VectorStoreIndex: the stored BM25 index's analyzer version", () => {
  it("records the analyzer, and rebuilds a BM25 index an older analyzer wrote instead of reading it", async () => {
    const first = await VectorStoreIndex.fromDocumentsCached(documents, { cacheDir: dir });
    expect(analyzer()).toBe(LEXICAL_ANALYZER);
    const ranked = await first.asRetriever({ similarityTopK: 2 }).retrieve({ query: "retries" });
    expect(ranked).toHaveLength(2);

    // An index an older analyzer wrote, with postings that no longer match.
    const renamed = sql((db) => {
      db.prepare("UPDATE meta SET value = ? WHERE key = 'analyzer'").run(String(LEXICAL_ANALYZER - 1));
      return db.prepare("UPDATE postings SET term = 'zzz' WHERE term = 'retry'").run().changes;
    });
    expect(renamed).toBe(1);

    // Not usable as it stands (the CLI then reads every file again) …
    expect(await VectorStoreIndex.storedSources(dir, {})).toBeUndefined();
    // … and the next build rebuilds the BM25 index from the documents and writes the current version.
    const second = await VectorStoreIndex.fromDocumentsCached(documents, { cacheDir: dir });
    expect(analyzer()).toBe(LEXICAL_ANALYZER);
    const again = await second.asRetriever({ similarityTopK: 2 }).retrieve({ query: "retries" });
    expect(again.map(({ node }) => node.id)).toEqual(ranked.map(({ node }) => node.id));
    expect(await VectorStoreIndex.storedSources(dir, {})).toHaveLength(2);
  });
});
