import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { LEXICAL_ANALYZER, lexicalDocumentTerms } from "../analysis/lexical-tokens.js";
import { TextNode } from "../schema/text-node.js";
import { openSqliteStore, SQLITE_INDEX_FILE } from "./open-sqlite-store.js";
import { sourceEdit } from "./source-edit.test.util.js";
import { snapshot } from "./sqlite-snapshot.test.util.js";
import { useTempDirs } from "./temp-dir.test.util.js";

const META = { embedderId: "test", storeVectors: true, analyzer: LEXICAL_ANALYZER, splitter: "test" };
const tempDir = useTempDirs("store");

/** The postings counts of the term's blocks in the index in `dir`, in key order. */
function blockCounts(dir: string, term: string): unknown[] {
  const db = new Database(path.join(dir, SQLITE_INDEX_FILE), { readonly: true });
  try {
    return db.prepare("SELECT count FROM postings WHERE term = ? ORDER BY first_key").pluck().all(term);
  } finally {
    db.close();
  }
}

describe("SqliteIndexStore", () => {
  it("packs a term's postings into its last block across writes, also when another connection wrote the term meanwhile", () => {
    const dir = tempDir();
    const blocks = (term: string) => blockCounts(dir, term);
    const [zebra] = lexicalDocumentTerms("zebra");
    const [quokka] = lexicalDocumentTerms("quokka");
    // A first build (the table empty when it began) knows which terms have blocks: each write of "zebra" after the
    // first joins its last block.
    const writer = openSqliteStore(dir, { _internal: { blockPostings: 4 } });
    writer.reset(META);
    for (const id of ["a", "b", "c"]) writer.write([sourceEdit(id, [`zebra ${id}`])]);
    expect(blocks(zebra as string)).toEqual([3]);
    // Another connection writes "quokka": the first one's knowledge is stale (data_version), so its own "quokka"
    // joins that block rather than start a second one.
    const other = openSqliteStore(dir, { _internal: { blockPostings: 4 } });
    other.write([sourceEdit("d", ["quokka d"])]);
    other.close();
    writer.write([sourceEdit("e", ["quokka e"])]);
    writer.close();
    expect(blocks(quokka as string)).toEqual([2]);
    expect(blocks(zebra as string)).toEqual([3]);
  });

  it("writes a term's many new postings as blocks of at most 8 x blockPostings, each of which an edit changes alone", () => {
    const dir = tempDir();
    const counts = (term: string) => blockCounts(dir, term);
    const [zebra] = lexicalDocumentTerms("zebra");
    const store = openSqliteStore(dir, { _internal: { blockPostings: 2 } });
    store.reset(META);
    // One write of 40 chunks holding the term: blocks of 16, 16 and 8 (one block of 40 before).
    const chunks = Array.from({ length: 40 }, (_, index) => `zebra number ${index}`);
    store.write([sourceEdit("a.md", chunks)]);
    expect(counts(zebra as string)).toEqual([16, 16, 8]);
    // A small last block (fewer than 2) takes new postings only while it stays within the cap: 1 + 20 would pass it.
    store.write([sourceEdit("b.md", ["zebra b"])]);
    expect(counts(zebra as string)).toEqual([16, 16, 8, 1]);
    const twenty = Array.from({ length: 20 }, (_, index) => `zebra c ${index}`);
    store.write([sourceEdit("c.md", twenty)]);
    expect(counts(zebra as string)).toEqual([16, 16, 8, 1, 16, 4]);
    // An edit of the first file keeps its first chunk and removes the others: every block of them loses its postings.
    store.write([sourceEdit("a.md", ["zebra number 0"])]);
    expect(counts(zebra as string)).toEqual([1, 1, 16, 4]);
    expect(snapshot(dir)).toEqual(snapshotOfRebuild());
    store.close();

    function snapshotOfRebuild() {
      const again = tempDir();
      const rebuilt = openSqliteStore(again, { _internal: { blockPostings: 2 } });
      rebuilt.reset(META);
      rebuilt.write([sourceEdit("b.md", ["zebra b"])]);
      rebuilt.write([sourceEdit("c.md", twenty)]);
      rebuilt.write([sourceEdit("a.md", ["zebra number 0"])]);
      rebuilt.close();
      return snapshot(again);
    }
  });

  it("reads its sources once while the file is unchanged, again after any write: its own, setOrder, another connection's (also during a read snapshot), a rolled-back replacing", async () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    store.write([sourceEdit("a.md", ["zebra a"]), sourceEdit("b.md", ["zebra b"])]);
    const ids = () => store.sources().map((source) => source.id);
    const first = store.sources();
    // Unchanged: the rows read before (the same objects), in a new array the caller may change.
    expect(store.sources()[0]).toBe(first[0]);
    first.pop();
    expect(ids()).toEqual(["a.md", "b.md"]);
    // Read inside a snapshot, kept for after it while nothing changed.
    const inSnapshot = store.read(() => store.sources());
    expect(store.sources()[0]).toBe(inSnapshot[0]);
    // Its own write.
    store.write([sourceEdit("c.md", ["zebra c"])]);
    expect(ids()).toEqual(["a.md", "b.md", "c.md"]);
    // Its own new order.
    store.setOrder(["c.md", "b.md", "a.md"]);
    expect(ids()).toEqual(["c.md", "b.md", "a.md"]);
    // Another connection's commit.
    const other = openSqliteStore(dir);
    other.write([sourceEdit("d.md", ["zebra d"])]);
    expect(ids()).toEqual(["c.md", "b.md", "a.md", "d.md"]);
    // Another connection's commit while this one's snapshot was open: the snapshot does not see it, what follows does.
    const duringSnapshot = store.read(() => {
      store.statistics(); // the snapshot begins at its first read
      other.write([sourceEdit("e.md", ["zebra e"])]);
      return store.sources().map((source) => source.id);
    });
    expect(duringSnapshot).toEqual(["c.md", "b.md", "a.md", "d.md"]);
    expect(ids()).toEqual(["c.md", "b.md", "a.md", "d.md", "e.md"]);
    other.close();
    // A replacing transaction rolled back: what was read inside it is gone with it.
    await expect(
      store.replacing(async () => {
        store.write([sourceEdit("f.md", ["zebra f"])], ["a.md"]);
        expect(ids()).toEqual(["c.md", "b.md", "d.md", "e.md", "f.md"]);
        throw new Error("stopped");
      }),
    ).rejects.toThrow("stopped");
    expect(ids()).toEqual(["c.md", "b.md", "a.md", "d.md", "e.md"]);
    store.close();
  });

  it("answers whether any chunk holds an image from an index of images, added to a file written before it", () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    store.write([sourceEdit("a.md", ["zebra stripe", "retry timeout"])]);
    expect(store.hasImages()).toBe(false);
    const image = sourceEdit("b.md", ["a chart"]);
    (image.chunks[0] as { holdsImage: boolean }).holdsImage = true;
    store.write([image]);
    expect(store.hasImages()).toBe(true);
    store.close();
    const plan = () => {
      const db = new Database(path.join(dir, SQLITE_INDEX_FILE), { readonly: true });
      try {
        return (
          db.prepare("EXPLAIN QUERY PLAN SELECT 1 FROM chunks WHERE is_image = 1 LIMIT 1").all() as {
            detail: string;
          }[]
        ).map((row) => row.detail);
      } finally {
        db.close();
      }
    };
    // Not a scan of the chunks.
    expect(plan()).toEqual([expect.stringMatching(/USING (COVERING )?INDEX chunks_images/)]);
    // A file of this layout written before the index: opening it adds the index, with the same answer.
    const db = new Database(path.join(dir, SQLITE_INDEX_FILE));
    db.exec("DROP INDEX chunks_images");
    db.close();
    expect(plan()).toEqual(["SCAN chunks"]);
    const reopened = openSqliteStore(dir);
    expect(reopened.hasImages()).toBe(true);
    reopened.close();
    expect(plan()).toEqual([expect.stringMatching(/USING (COVERING )?INDEX chunks_images/)]);
  });

  it("reads back what it wrote: sources in order, chunks by key and node id, vectors, postings", () => {
    const dir = tempDir();
    const store = openSqliteStore(dir);
    store.reset(META);
    store.write([sourceEdit("b.md", ["zebra stripe", "retry timeout"]), sourceEdit("a.md", ["zebra queue"])]);
    expect(store.sources().map((source) => [source.id, source.chunkCount])).toEqual([
      ["b.md", 2],
      ["a.md", 1],
    ]);
    store.setOrder(["a.md", "b.md"]);
    expect(store.sources().map((source) => source.id)).toEqual(["a.md", "b.md"]);
    expect(store.sourceNodeIds("b.md")).toEqual(["b.md#0", "b.md#1"]);
    // Ids of another form are kept as written, in and out of a read snapshot.
    const named = sourceEdit("c.md", ["zebra", "stripe"]);
    named.chunks.forEach((chunk, index) => {
      chunk.node = new TextNode({ id: `section-${index}`, text: (chunk.node as TextNode).text });
    });
    store.write([named]);
    expect(store.sourceNodeIds("c.md")).toEqual(["section-0", "section-1"]);
    expect(store.read(() => ["a.md", "b.md", "c.md"].map((id) => store.sourceNodeIds(id)))).toEqual([
      ["a.md#0"],
      ["b.md#0", "b.md#1"],
      ["section-0", "section-1"],
    ]);
    store.write([], ["c.md"]);
    const zebra = store.postings("zebra");
    expect(zebra && [...zebra.keys].length).toBe(2);
    const chunks = store.chunks([...(zebra?.keys ?? [])]);
    expect(chunks.map((chunk) => chunk.node.id)).toEqual(["b.md#0", "a.md#0"]);
    expect(store.chunkByNodeId("a.md#0")?.node.text).toBe("zebra queue");
    expect([...(store.vectors(["chunk-zebra queue"]).get("chunk-zebra queue") ?? [])]).toEqual([11, 1]);
    expect(store.statistics()).toEqual({ documents: 3, totalLength: 6 });
    expect(store.documentFrequencies(["zebra", "unknown"])).toEqual(new Map([["zebra", 2]]));
    expect(store.meta()).toEqual(META);
    store.close();
  });
});
