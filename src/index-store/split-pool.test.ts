import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { TextNode } from "../schema/text-node.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import type { IndexStore } from "../store/index-store.js";
import { decodeNode } from "../store/node-row.js";
import { openFolderIndex } from "./folder-index.js";
import { folderIndexOptions } from "./folder-index-options.test.util.js";
import type { FolderIndexOptions } from "./folder-read-options.js";
import { autoThreads, SplitPool, splitPoolFor } from "./split-pool.js";
import { openStoreAt } from "./store-location.js";
import { VectorStoreIndex } from "./vector-store-index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-split-pool-"));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

function options(cacheDir: string, more: Partial<FolderIndexOptions> = {}): FolderIndexOptions {
  return folderIndexOptions(dir, ["docs"], { cacheDir, ...more });
}

/** A folder of Markdown (sections, code, a table, long paragraphs), plain text and code, some files many chunks long. */
async function docs(): Promise<void> {
  const folder = join(dir, "docs");
  await mkdir(join(folder, "guide"), { recursive: true });
  const paragraph = (seed: number) =>
    Array.from(
      { length: 40 },
      (_, index) =>
        `Sentence ${seed}.${index} retries the queue with backoff ${index * seed} times, then stops.`,
    ).join(" ");
  for (let file = 0; file < 12; file++) {
    const sections = Array.from(
      { length: 6 },
      (_, section) =>
        `## Part ${section}\n\n${paragraph(file * 10 + section)}\n\n\`\`\`ts\nconst limit${section} = ${file};\n\`\`\`\n\n| key | value |\n| --- | --- |\n| timeout | ${section}s |\n`,
    ).join("\n");
    await writeFile(join(folder, "guide", `page-${file}.md`), `# Page ${file}\n\n${sections}`);
  }
  await writeFile(join(folder, "notes.txt"), `${paragraph(7)}\n\n${paragraph(8)}\n`);
  await writeFile(
    join(folder, "tool.py"),
    `def retry(queue):\n    """Retries the queue."""\n    return queue\n`,
  );
}

/** Everything a store holds that a query reads: each chunk's node, hash and length in key order, and the stats. */
async function content(store: IndexStore): Promise<unknown> {
  const chunks: unknown[] = [];
  for await (const batch of store.allChunks()) {
    for (const chunk of batch)
      chunks.push({ key: chunk.key, node: chunk.node.toJSON(), contentHash: chunk.contentHash });
  }
  const terms = ["retries", "queue", "backoff", "timeout", "limit3", "page"];
  const postings = await Promise.all(terms.map((term) => store.postings(term)));
  return { chunks, statistics: await store.statistics(), postings, sources: await store.sources() };
}

async function builtWith(threads: number | undefined, more: Partial<FolderIndexOptions> = {}) {
  const cacheDir = join(dir, `cache-${threads}-${Math.random().toString(36).slice(2)}`);
  const opened = await openFolderIndex(
    options(cacheDir, { ...(threads === undefined ? {} : { threads }), ...more }),
  );
  await opened.index.saved;
  const store = await openStoreAt(cacheDir);
  try {
    return { stats: opened.stats, content: await content(store) };
  } finally {
    await store.close();
  }
}

describe("an index split in worker threads", () => {
  it("holds the same chunks, postings, statistics and sources as one split in this thread", async () => {
    await docs();
    const here = await builtWith(0);
    const split = vi.spyOn(SplitPool.prototype, "split");
    const threaded = await builtWith(2);
    // Every document went to a thread and came back split.
    expect(split).toHaveBeenCalledTimes(14);
    for (const result of split.mock.results) expect(await result.value).toEqual(expect.any(Array));
    expect(threaded.stats.chunks).toBeGreaterThan(20);
    expect(threaded.content).toEqual(here.content);
    expect(threaded.stats.formats).toEqual(here.stats.formats);
  });

  it("splits in threads with the splitter it is given (chunk size, overlap, tokenizer)", async () => {
    await docs();
    const splitter = () => new BlockSplitter({ chunkSize: 128, chunkOverlap: 16, tokenizer: "o200k_base" });
    const here = await builtWith(0, { splitter: splitter() });
    const split = vi.spyOn(SplitPool.prototype, "split");
    const threaded = await builtWith(3, { splitter: splitter() });
    expect(split).toHaveBeenCalledTimes(14);
    for (const result of split.mock.results) expect(await result.value).toEqual(expect.any(Array));
    expect(threaded.content).toEqual(here.content);
    expect(threaded.stats.chunks).toBeGreaterThan(here.stats.chunks > 0 ? 100 : 0);
  });

  it("throws the splitter's own error, typed, when a worker could not split a document", async () => {
    // Metadata longer than a chunk: the splitter refuses (an InvalidArgumentError in this thread).
    const documents = [
      new TextNode({
        id: "a.md",
        text: "Retries the queue. ".repeat(200),
        metadata: { note: "word ".repeat(200) },
      }),
    ];
    const built = (threads: number) =>
      VectorStoreIndex.fromDocumentsCached(documents, {
        cacheDir: join(dir, `cache-${threads}`),
        embedModel: new HashingEmbedder(),
        splitter: new BlockSplitter({ chunkSize: 64, chunkOverlap: 0 }),
        threads,
      }).catch((error: unknown) => error);
    const here = await built(0);
    const split = vi.spyOn(SplitPool.prototype, "split");
    const threaded = await built(2);
    // The thread could not split it (undefined), so this thread did, and threw.
    expect(split).toHaveBeenCalledTimes(1);
    expect(await split.mock.results[0]?.value).toBeUndefined();
    expect(here).toBeInstanceOf(InvalidArgumentError);
    expect(threaded).toBeInstanceOf(InvalidArgumentError);
    expect((threaded as Error).message).toBe((here as Error).message);
  });

  it("stops when the build is aborted, its threads ended", async () => {
    await docs();
    const controller = new AbortController();
    const terminate = vi.spyOn(SplitPool.prototype, "terminate");
    const built = builtWith(2, {
      signal: controller.signal,
      progress: {
        start() {},
        update(done) {
          if (done >= 1) controller.abort(new DOMException("stopped", "AbortError"));
        },
        clear() {},
      },
    });
    await expect(built).rejects.toMatchObject({ name: "AbortError" });
    expect(terminate).toHaveBeenCalledTimes(1);
  });

  it("says why when the threads it started did nothing (every one failed), the index built here", async () => {
    await docs();
    const here = await builtWith(0);
    // Threads that cannot take anything (as when they fail to start: SplitPool answers undefined, failure set).
    vi.spyOn(SplitPool.prototype, "split").mockResolvedValue(undefined);
    vi.spyOn(SplitPool.prototype, "parse").mockResolvedValue(undefined);
    vi.spyOn(SplitPool.prototype, "failure", "get").mockReturnValue("Cannot find module split-worker.js");
    const failed = await builtWith(2);
    expect(failed.stats.threads).toBe(0);
    expect(failed.stats.threadsFailed).toBe("Cannot find module split-worker.js");
    expect(failed.content).toEqual(here.content);
    expect(here.stats.threadsFailed).toBeUndefined();
    vi.restoreAllMocks();
    expect((await builtWith(2)).stats.threadsFailed).toBeUndefined();
  });

  it("rejects a threads count that is not an integer ≥ 0", async () => {
    await docs();
    for (const threads of [-1, 1.5, "2" as unknown as number]) {
      const error = await builtWith(threads).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toMatch(/threads/);
    }
  });
});

describe("splitPoolFor", () => {
  const pending = [
    new TextNode({ id: "a.md", text: "x".repeat(10), metadata: { file_size: 2 * 1024 * 1024 } }),
  ];

  it("starts threads by itself by the cores and the bytes to split: one on 2 or 3 cores from 16 MiB", () => {
    const MiB = 1024 * 1024;
    expect(autoThreads(100 * MiB, 1)).toBe(0);
    for (const cores of [2, 3]) {
      expect(autoThreads(16 * MiB - 1, cores)).toBe(0);
      expect(autoThreads(16 * MiB, cores)).toBe(1);
      expect(autoThreads(300 * MiB, cores)).toBe(1);
    }
    expect(autoThreads(MiB - 1, 4)).toBe(0);
    expect(autoThreads(MiB, 4)).toBe(3);
    expect(autoThreads(MiB, 5)).toBe(4);
    expect(autoThreads(300 * MiB, 16)).toBe(4);
  });

  it("starts no threads by itself for one document, and splits a very long one in the build's thread", async () => {
    const one = [new TextNode({ id: "big.md", text: "x", metadata: { file_size: 100 * 1024 * 1024 } })];
    expect(splitPoolFor(undefined, undefined, one, false)).toBeUndefined();
    const asked = splitPoolFor(1, undefined, one, false);
    expect(asked?.threads).toBe(1);
    await asked?.terminate();
    const pool = new SplitPool(1, { splitter: {}, keepVectors: false, tokenizerCache: undefined });
    try {
      const long = new TextNode({ id: "long.md", text: "word ".repeat(1.7 * 1024 * 1024) });
      expect(await pool.split(long)).toBeUndefined();
      expect(pool.documentsSplit).toBe(0);
      const chunks = await pool.split(new TextNode({ id: "short.md", text: "word ".repeat(1000) }));
      expect(chunks?.length).toBeGreaterThan(0);
      expect(pool.documentsSplit).toBe(1);
    } finally {
      await pool.terminate();
    }
  });

  it("starts no threads for a splitter whose options cannot go to a thread, or for 0", () => {
    const custom = new BlockSplitter({ tokenizer: (text: string) => text.split(" ").map(() => 0) });
    expect(splitPoolFor(2, custom, pending, false)).toBeUndefined();
    const sentences = new BlockSplitter({ chunkingTokenizerFn: (text: string) => [text] });
    expect(splitPoolFor(2, sentences, pending, false)).toBeUndefined();
    class OwnSplitter extends BlockSplitter {}
    expect(splitPoolFor(2, new OwnSplitter(), pending, false)).toBeUndefined();
    expect(splitPoolFor(0, undefined, pending, false)).toBeUndefined();
    expect(splitPoolFor(2, undefined, [], false)).toBeUndefined();
  });

  it("answers undefined (split here) when its thread dies: nothing waits for it", async () => {
    // Options a thread's splitter refuses: the thread throws as it starts.
    const pool = new SplitPool(1, {
      splitter: { chunkSize: -1 },
      keepVectors: false,
      tokenizerCache: undefined,
    });
    try {
      const answers = await Promise.all([
        pool.split(new TextNode({ id: "a.md", text: "a" })),
        pool.split(new TextNode({ id: "b.md", text: "b" })),
      ]);
      expect(answers).toEqual([undefined, undefined]);
      expect(await pool.split(new TextNode({ id: "c.md", text: "c" }))).toBeUndefined();
      expect(pool.documentsSplit).toBe(0);
      // Why, for the build to say: the thread's own error.
      expect(pool.failure).toMatch(/chunkSize/);
    } finally {
      await pool.terminate();
    }
  });

  it("answers undefined (split here) for what a thread cannot take, and after its threads ended", async () => {
    const pool = splitPoolFor(1, undefined, pending, true) as SplitPool;
    expect(pool).toBeInstanceOf(SplitPool);
    try {
      const document = new TextNode({
        id: "a.md",
        text: "Retries the queue.",
        metadata: { file_name: "a.md" },
      });
      const chunks = await pool.split(document);
      expect(chunks?.map((chunk) => chunk.node.id)).toEqual(["a.md#0"]);
      // Its row decodes to the node this thread would make; its content comes back for embedding.
      const [chunk] = chunks ?? [];
      if (!chunk || !("encoded" in chunk.node)) throw new Error("expected a chunk encoded in the thread");
      expect(decodeNode(chunk.node.encoded, "test").text).toBe("Retries the queue.");
      expect(chunk.content).toContain("Retries the queue.");
      // Metadata a thread cannot be sent.
      const withFunction = new TextNode({ id: "b.md", text: "b", metadata: { fn: () => 1 } });
      expect(await pool.split(withFunction)).toBeUndefined();
    } finally {
      await pool.terminate();
    }
    expect(await pool.split(new TextNode({ id: "c.md", text: "c" }))).toBeUndefined();
  });
});
