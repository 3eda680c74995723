import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, expect, it } from "vitest";
import { LEXICAL_ANALYZER } from "../analysis/lexical-tokens.js";
import { TextNode } from "../schema/text-node.js";
import { openSqliteStore, SQLITE_INDEX_FILE } from "./open-sqlite-store.js";
import { sourceEdit } from "./source-edit.test.util.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("keeps the rows and postings of an edited file's chunks that did not change, and rewrites their nodes", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ragsynth-kept-"));
  dirs.push(dir);
  const store = openSqliteStore(dir);
  store.reset({ embedderId: "test", storeVectors: true, analyzer: LEXICAL_ANALYZER, splitter: "test" });
  store.write([sourceEdit("a.md", ["zebra stripe", "retry queue", "the end"])]);
  const db = new Database(path.join(dir, SQLITE_INDEX_FILE), { readonly: true });
  const keys = () => db.prepare("SELECT node_id, key FROM chunks ORDER BY position").raw().all();
  const [first, second, third] = keys() as [string, number][];

  // The file grew at its end: its first two chunks are the same text, now with other metadata.
  const edit = sourceEdit("a.md", ["zebra stripe", "retry queue", "the end, edited"]);
  const [kept] = edit.chunks;
  if (!kept) throw new Error("no chunk");
  kept.node = new TextNode({
    id: kept.node.id,
    text: (kept.node as TextNode).text,
    metadata: { file_size: 42 },
  });
  store.write([edit]);

  const after = keys() as [string, number][];
  expect(after.slice(0, 2)).toEqual([first, second]);
  expect(after[2]?.[0]).toBe(third?.[0]);
  expect(after[2]?.[1]).toBeGreaterThan(third?.[1] ?? Number.POSITIVE_INFINITY);
  expect(store.chunkByNodeId("a.md#0")?.node.metadata).toEqual({ file_size: 42 });
  expect(store.statistics().documents).toBe(3);
  db.close();
  store.close();
});
