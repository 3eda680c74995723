import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { queryObjects } from "node:v8";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TextNode } from "../schema/text-node.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import { GROUP_CHUNKS_UNEMBEDDED } from "./store-build.js";
import { VectorStoreIndex } from "./vector-store-index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-build-reads-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const DOCUMENTS = 40;
// Small chunks, so each document gives a few hundred and a group closes every few documents.
const HIDDEN = ["file_path", "file_size", "last_modified_at"];
const splitter = () => new BlockSplitter({ chunkSize: 24, chunkOverlap: 0 });

function fullDocument(index: number): TextNode {
  const paragraphs = Array.from(
    { length: 120 },
    (_, paragraph) =>
      `Document ${index} paragraph ${paragraph}: the retry policy of queue ${index} waits ${paragraph} seconds, and term${index}x${paragraph} names it.`,
  );
  return new TextNode({
    id: `doc-${String(index).padStart(2, "0")}.txt`,
    text: paragraphs.join("\n\n"),
    metadata: {
      file_path: `doc-${index}.txt`,
      file_size: 1000 + index,
      last_modified_at: "2026-01-01T00:00:00.000Z",
    },
    // Hidden, so the small chunks have room for text.
    excludedEmbedMetadataKeys: [...HIDDEN],
    excludedLlmMetadataKeys: [...HIDDEN],
  });
}

/** The document as a listing gives it: its id and metadata, no text. */
function listed(document: TextNode): TextNode {
  return new TextNode({ id: document.id, text: "", metadata: { ...document.metadata } });
}

describe("fromDocumentsCached with readDocument", () => {
  it("reads each document when its group is built, holding a few groups' worth at most, not every document", async () => {
    const full = Array.from({ length: DOCUMENTS }, (_, index) => fullDocument(index));
    const byId = new Map(full.map((document) => [document.id, document]));
    let reads = 0;
    let written = 0;
    let mostHeld = 0;
    const index = await VectorStoreIndex.fromDocumentsCached(full.map(listed), {
      cacheDir: join(dir, "lazy"),
      splitter: splitter(),
      readDocument: async (document) => {
        reads++;
        // Read but not yet written: what the build holds (the group being filled, and the reads ahead of it).
        mostHeld = Math.max(mostHeld, reads - written);
        return byId.get(document.id);
      },
      onLexicalProgress: ({ added }) => {
        written = added;
      },
    });
    expect(reads).toBe(DOCUMENTS);
    expect(written).toBe(DOCUMENTS);
    // Several groups were written, and no read ran more than a group (and a few reads ahead) before its write.
    const perDocument = splitter().getNodesFromDocuments([fullDocument(0)]).length;
    const documentsPerGroup = Math.ceil(GROUP_CHUNKS_UNEMBEDDED / perDocument);
    expect(documentsPerGroup * 3).toBeLessThan(DOCUMENTS);
    expect(mostHeld).toBeLessThanOrEqual(documentsPerGroup + 5);

    // The same index as from the documents read up front.
    const eager = await VectorStoreIndex.fromDocumentsCached(full, {
      cacheDir: join(dir, "eager"),
      splitter: splitter(),
    });
    expect(index.buildStats.chunks).toBe(eager.buildStats.chunks);
    expect(index.buildStats.sources).toEqual(eager.buildStats.sources);
    const query = { query: "retry policy of queue 17 term17x42" };
    const ids = async (built: VectorStoreIndex) =>
      (await built.asRetriever({ similarityTopK: 4 }).retrieve(query)).map((hit) => hit.node.text);
    expect(await ids(index)).toEqual(await ids(eager));
    await index.close();
    await eager.close();
  });

  it("does not hold a document while its chunks are written: its text and blocks can be collected", async () => {
    // What a 30.6 MB file showed: its document (54 MB of text) and the file's text its blocks were cut from (61 MB)
    // stayed alive through the write of its 8,701 chunks. Here each document is read fresh, known only by a WeakRef,
    // and the heap is collected while its group is being written (onLexicalProgress is called after each write).
    // Collected as the heap profiler collects (v8.queryObjects does before it counts). `gc()` (--expose-gc) left a
    // document whose group was written alive one run in 6 to 15 here, held by nothing but the WeakRef kept-objects
    // list in a heap snapshot taken right after; with the profiler's collection none was in 100 runs. The count it
    // returns is not used.
    const gc = () => queryObjects(TextNode);
    // Listed documents only: the test holds no document's text itself.
    const listedDocuments = Array.from({ length: 12 }, (_, index) => listed(fullDocument(index)));
    const position = new Map(listedDocuments.map((document, at) => [document.id, at]));
    const refs = new Map<string, WeakRef<TextNode>>();
    const seen: { added: number; alive: number[] }[] = [];
    const index = await VectorStoreIndex.fromDocumentsCached(listedDocuments, {
      cacheDir: join(dir, "released"),
      splitter: splitter(),
      readDocument: async (document) => {
        const read = fullDocument(position.get(document.id) as number);
        refs.set(read.id, new WeakRef(read));
        return read;
      },
      onLexicalProgress: ({ added }) => {
        // Checked in the next turn, while the build waits on that same turn after the write: a WeakRef keeps its
        // target alive to the end of the job that made it or read it.
        setImmediate(() => {
          gc();
          const alive = [...refs].filter(([, ref]) => ref.deref() !== undefined);
          seen.push({ added, alive: alive.map(([id]) => position.get(id) as number) });
        });
      },
    });
    expect(index.buildStats.sources.added).toHaveLength(12);
    // Several groups were written, the last with every document done.
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.at(-1)?.added).toBe(12);
    // At each write, the documents done (split, their group written: positions below `added`) were collected; only
    // those read ahead of them could be alive.
    for (const { added, alive } of seen) expect(alive.filter((at) => at < added)).toEqual([]);
    await index.close();
  });

  it("reads fewer documents ahead when their files are large (a few MB of files at most)", async () => {
    // The most reads running at once, each read settling a few milliseconds after it starts.
    const mostAtOnce = async (fileSize: number, name: string, threads = 0) => {
      const full = Array.from({ length: 12 }, (_, index) => {
        const document = fullDocument(index);
        document.metadata.file_size = fileSize;
        return document;
      });
      const byId = new Map(full.map((document) => [document.id, document]));
      let running = 0;
      let most = 0;
      const index = await VectorStoreIndex.fromDocumentsCached(full.map(listed), {
        cacheDir: join(dir, name),
        splitter: splitter(),
        threads,
        readDocument: async (document) => {
          running++;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
          return byId.get(document.id);
        },
      });
      expect(index.buildStats.sources.added).toHaveLength(12);
      await index.close();
      return most;
    };
    // Small files: the one being split waits on its read with four more ahead of it.
    expect(await mostAtOnce(10_000, "small")).toBe(5);
    // 3 MB PDFs: one ahead at most (two would pass 4 MB).
    expect(await mostAtOnce(3_000_000, "large")).toBe(2);
    // 5 MB: none ahead, only the one asked for.
    expect(await mostAtOnce(5_000_000, "larger")).toBe(1);
    // The same with worker threads, which are sent documents ahead within the same few MB (the reads' own window
    // stacked on theirs read three 3 MB files at once).
    expect(await mostAtOnce(3_000_000, "large-threads", 2)).toBe(2);
    expect(await mostAtOnce(5_000_000, "larger-threads", 2)).toBe(1);
  });

  it("keeps the stored documents in the documents' order through edits, additions and removals", async () => {
    const cacheDir = join(dir, "index");
    const small = (index: number, size = 1000 + index) => {
      const document = fullDocument(index);
      return new TextNode({
        id: document.id,
        text: document.text.slice(0, 400 + size - 1000),
        metadata: { ...document.metadata, file_size: size },
      });
    };
    const order = async () =>
      (await VectorStoreIndex.storedSources(cacheDir, {}))?.map((source) => source.id);
    const build = async (documents: TextNode[]) =>
      (await VectorStoreIndex.fromDocumentsCached(documents, { cacheDir })).close();
    await build([small(1), small(2), small(3)]);
    // doc-02 edited, doc-00 added before the rest, doc-03 removed.
    await build([small(0), small(1), small(2, 1200)]);
    expect(await order()).toEqual(["doc-00.txt", "doc-01.txt", "doc-02.txt"]);
    // An edit alone moves nothing.
    await build([small(0), small(1, 1300), small(2, 1200)]);
    expect(await order()).toEqual(["doc-00.txt", "doc-01.txt", "doc-02.txt"]);
    await build([small(0), small(1, 1300), small(2, 1200), small(4)]);
    expect(await order()).toEqual(["doc-00.txt", "doc-01.txt", "doc-02.txt", "doc-04.txt"]);
  });

  it("leaves out a document that cannot be read, and removes its stored rows", async () => {
    const full = Array.from({ length: 3 }, (_, index) => fullDocument(index));
    const cacheDir = join(dir, "index");
    const first = await VectorStoreIndex.fromDocumentsCached(full, { cacheDir });
    const stored = first.buildStats.chunks;
    await first.close();
    // doc-01 changed on disk (another size) and became unreadable; doc-02 is new and unreadable.
    const changed = full.map((document, index) =>
      index === 1
        ? new TextNode({ id: document.id, text: "", metadata: { ...document.metadata, file_size: 1 } })
        : listed(document),
    );
    changed.push(listed(fullDocument(3)));
    const reads: string[] = [];
    const second = await VectorStoreIndex.fromDocumentsCached(changed, {
      cacheDir,
      readDocument: async (document) => {
        reads.push(document.id);
        return undefined;
      },
    });
    expect(reads).toEqual(["doc-01.txt", "doc-03.txt"]);
    expect(second.buildStats.sources).toMatchObject({
      unchanged: ["doc-00.txt", "doc-02.txt"],
      added: [],
      removed: ["doc-01.txt"],
    });
    expect(second.buildStats.chunks).toBeLessThan(stored);
    expect((await VectorStoreIndex.storedSources(cacheDir, {}))?.map((source) => source.id)).toEqual([
      "doc-00.txt",
      "doc-02.txt",
    ]);
    await second.close();
  });
});
