// The SQLite store's sources rows: each file's fingerprint and bytes hash, their version, their order, and the layout
// migrations that add to them (sqlite-index-store.test.ts has the postings, images and the rest).
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { LEXICAL_ANALYZER } from "../analysis/lexical-tokens.js";
import { openSqliteStore, SQLITE_INDEX_FILE } from "./open-sqlite-store.js";
import { fileEdit, sourceEdit } from "./source-edit.test.util.js";
import { SQLITE_STORE_VERSION } from "./sqlite-schema.js";
import { snapshot } from "./sqlite-snapshot.test.util.js";
import { useTempDirs } from "./temp-dir.test.util.js";

const META = { embedderId: "test", storeVectors: true, analyzer: LEXICAL_ANALYZER, splitter: "test" };
const tempDir = useTempDirs("store");

describe("SqliteIndexStore's sources rows", () => {
  it("keeps each file's bytes hash, and records a new size and time without touching its chunks (setFingerprints)", () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    const a = fileEdit("a.md", ["zebra stripe", "retry timeout"], {
      size: 10,
      lastModifiedAt: "2026-01-01T00:00:00.000Z",
    });
    Object.assign(a.source as object, { bytesHash: "ab12" });
    store.write([a, sourceEdit("b.md", ["zebra queue"])]);
    const before = snapshot(dir);
    // The freshness check's read leaves the hashes out; they are read for the documents a build reads again.
    expect(store.sources().map((source) => "bytesHash" in source)).toEqual([false, false]);
    expect(store.sources()[0]).toEqual(
      expect.objectContaining({ id: "a.md", size: 10, lastModifiedAt: "2026-01-01T00:00:00.000Z" }),
    );
    expect(store.bytesHashes(["a.md", "b.md", "gone.md"])).toEqual(new Map([["a.md", "ab12"]]));
    const chunkRows = (db: Database.Database) =>
      db.prepare("SELECT key, node_id, node FROM chunks ORDER BY key").all();
    const db = new Database(path.join(dir, SQLITE_INDEX_FILE), { readonly: true });
    const rowsBefore = chunkRows(db);
    store.setFingerprints([
      { id: "a.md", size: 12, lastModifiedAt: "2026-02-02T00:00:00.000Z" },
      { id: "gone.md", size: 1 },
    ]);
    expect(store.sources()[0]).toEqual(
      expect.objectContaining({ id: "a.md", size: 12, lastModifiedAt: "2026-02-02T00:00:00.000Z" }),
    );
    expect(store.bytesHashes(["a.md"])).toEqual(new Map([["a.md", "ab12"]]));
    expect(store.sources().map((source) => source.id)).toEqual(["a.md", "b.md"]);
    expect(chunkRows(db)).toEqual(rowsBefore);
    expect(snapshot(dir)).toEqual(before);
    // Its chunks, their rows untouched, read with the file's new size and time (from its sources row), by every
    // way a chunk is read.
    const facts = { file_path: "a.md", file_size: 12, last_modified_at: "2026-02-02T00:00:00.000Z" };
    expect(store.chunkByNodeId("a.md#0")?.node.metadata).toEqual(facts);
    const all = [...store.allChunks()].flat();
    expect(all.map((chunk) => chunk.node.metadata)).toEqual([facts, facts, {}]);
    expect(store.chunks(all.map((chunk) => chunk.key)).map((chunk) => chunk.node.metadata)).toEqual([
      facts,
      facts,
      {},
    ]);
    db.close();
    store.close();
  });

  it("migrates a layout 4 file when opened: its sources rows get bytes_hash (NULL), nothing else is rewritten", () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    store.write([sourceEdit("a.md", ["zebra stripe", "retry timeout"])]);
    store.close();
    const before = snapshot(dir);
    const db = new Database(path.join(dir, SQLITE_INDEX_FILE));
    db.exec("ALTER TABLE sources DROP COLUMN bytes_hash");
    db.pragma("user_version = 4");
    db.close();
    const reopened = openSqliteStore(dir);
    expect(reopened.sources()).toEqual([{ id: "a.md", contentHash: expect.any(String), chunkCount: 2 }]);
    const edit = sourceEdit("a.md", ["zebra stripe", "retry timeout"]);
    Object.assign(edit.source as object, { bytesHash: "cd34" });
    reopened.write([edit]);
    expect(reopened.bytesHashes(["a.md"])).toEqual(new Map([["a.md", "cd34"]]));
    reopened.close();
    expect(snapshot(dir)).toEqual(before);
    const check = new Database(path.join(dir, SQLITE_INDEX_FILE), { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(SQLITE_STORE_VERSION);
    check.close();
  });

  it("moves the sources rows' version with every change to them, by any writer, and only then", () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    const versions = [store.sourcesVersion()];
    store.write([sourceEdit("a.md", ["zebra stripe"]), sourceEdit("b.md", ["retry timeout"])]);
    versions.push(store.sourcesVersion());
    // Reads, and a write of chunks only through another connection, leave it.
    store.sources();
    store.statistics();
    const other = openSqliteStore(dir);
    expect(other.sourcesVersion()).toBe(versions[1]);
    other.setFingerprints([{ id: "a.md", size: 3, lastModifiedAt: "2026-02-02T00:00:00.000Z" }]);
    versions.push(store.sourcesVersion());
    // A writer that knows nothing of it (another program, raw SQL) moves it too.
    const db = new Database(path.join(dir, SQLITE_INDEX_FILE));
    db.prepare("DELETE FROM sources WHERE id = 'b.md'").run();
    db.close();
    versions.push(store.sourcesVersion());
    store.setOrder(["a.md"]);
    versions.push(store.sourcesVersion());
    expect(versions.every((version) => Number.isSafeInteger(version))).toBe(true);
    expect(new Set(versions).size).toBe(versions.length);
    expect(store.sourcesVersion()).toBe(versions.at(-1));
    other.close();
    store.close();
    // Another file starts from another number (a file built again holds no version of the one it replaced).
    const elsewhere = openSqliteStore(tempDir());
    expect(elsewhere.sourcesVersion()).not.toBe(versions[0]);
    elsewhere.close();
  });

  it("says the rows' version after its own writes only while no other writer came between them", async () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    store.write([sourceEdit("a.md", ["zebra stripe"]), sourceEdit("b.md", ["retry timeout"])]);
    const checked = store.sourcesVersion() as number;
    // Nothing written since: the version checked.
    expect(store.sourcesVersionAfterOwnWrites(checked)).toBe(checked);
    store.write([sourceEdit("a.md", ["zebra stripe, edited"])]);
    store.setFingerprints([{ id: "b.md", size: 9, lastModifiedAt: "2026-02-02T00:00:00.000Z" }]);
    store.setOrder(["b.md", "a.md"]);
    const own = store.sourcesVersion() as number;
    expect(own).not.toBe(checked);
    expect(store.sourcesVersionAfterOwnWrites(checked)).toBe(own);
    // From a version it did not start at, it cannot tell.
    expect(store.sourcesVersionAfterOwnWrites(checked - 1)).toBeUndefined();
    // Another connection writes between two of its writes: from then on, undefined from before it.
    const other = openSqliteStore(dir);
    other.setFingerprints([{ id: "a.md", size: 4, lastModifiedAt: "2026-02-03T00:00:00.000Z" }]);
    other.close();
    expect(store.sourcesVersionAfterOwnWrites(checked)).toBeUndefined();
    expect(store.sourcesVersionAfterOwnWrites(own)).toBeUndefined();
    store.write([sourceEdit("c.md", ["quokka lantern"])]);
    // Its writes after the other's do not join the chain from before it.
    expect(store.sourcesVersionAfterOwnWrites(own)).toBeUndefined();
    expect(store.sourcesVersionAfterOwnWrites(checked)).toBeUndefined();
    const afterOther = store.sourcesVersion() as number;
    store.write([sourceEdit("d.md", ["okapi banner"])]);
    store.write([sourceEdit("d.md", ["okapi banner, edited"])]);
    // From any version between its own writes.
    expect(store.sourcesVersionAfterOwnWrites(afterOther)).toBe(store.sourcesVersion());
    // A write rolled back with the transaction around it leaves no chain behind.
    const beforeFailure = store.sourcesVersion() as number;
    await expect(
      store.replacing(async () => {
        store.write([sourceEdit("e.md", ["failing write"])]);
        throw new Error("stop");
      }),
    ).rejects.toThrow("stop");
    expect(store.sourcesVersion()).toBe(beforeFailure);
    expect(store.sourcesVersionAfterOwnWrites(beforeFailure)).toBe(beforeFailure);
    expect(store.sourcesVersionAfterOwnWrites(afterOther)).toBeUndefined();
    store.close();
  });

  it("reads the rows of the documents asked for only, in the order asked", () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    store.write([sourceEdit("a.md", ["zebra stripe"]), sourceEdit("b.md", ["retry timeout"])]);
    store.setFingerprints([{ id: "b.md", size: 9, lastModifiedAt: "2026-02-02T00:00:00.000Z" }]);
    const all = store.sources();
    expect(store.sourcesOf(["b.md", "missing.md", "a.md"])).toEqual([all[1], all[0]]);
    expect(store.sourcesOf(["b.md"])[0]).toMatchObject({ id: "b.md", size: 9 });
    expect(store.sourcesOf([])).toEqual([]);
    store.close();
  });

  it("migrates a layout 5 file when opened: it gets the sources rows' version, kept from then on", () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    store.write([sourceEdit("a.md", ["zebra stripe"])]);
    store.close();
    const before = snapshot(dir);
    const db = new Database(path.join(dir, SQLITE_INDEX_FILE));
    db.exec(
      "DROP TRIGGER sources_inserted; DROP TRIGGER sources_updated; DROP TRIGGER sources_deleted; DROP TABLE sources_version;",
    );
    db.pragma("user_version = 5");
    db.close();
    const reopened = openSqliteStore(dir);
    const version = reopened.sourcesVersion();
    expect(Number.isSafeInteger(version)).toBe(true);
    reopened.write([sourceEdit("b.md", ["retry timeout"])]);
    expect(reopened.sourcesVersion()).not.toBe(version);
    reopened.close();
    expect(snapshot(dir).stats).not.toEqual(before.stats);
    const check = new Database(path.join(dir, SQLITE_INDEX_FILE), { readonly: true });
    expect(check.pragma("user_version", { simple: true })).toBe(SQLITE_STORE_VERSION);
    check.close();
  });

  it("gives an edited document its old position: no other source row is written", () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    store.write(["a.md", "b.md", "c.md"].map((id) => sourceEdit(id, [`zebra ${id}`])));
    const db = new Database(path.join(dir, SQLITE_INDEX_FILE), { readonly: true });
    const rows = () => db.prepare("SELECT id, position FROM sources ORDER BY id").all();
    const before = rows();
    store.write([sourceEdit("a.md", ["zebra a.md, edited", "a second chunk"])]);
    expect(rows()).toEqual(before);
    expect(store.sources().map((source) => [source.id, source.chunkCount])).toEqual([
      ["a.md", 2],
      ["b.md", 1],
      ["c.md", 1],
    ]);
    // A new document goes after the last; a removed one leaves the others where they were.
    store.write([sourceEdit("0.md", ["zebra new"])], ["b.md"]);
    expect(store.sources().map((source) => source.id)).toEqual(["a.md", "c.md", "0.md"]);
    db.close();
    store.close();
  });
});
