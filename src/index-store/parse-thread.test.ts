import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { htmlReader } from "../reader/formats/html.js";
import { markdownReader } from "../reader/formats/markdown.js";
import { pdfReader } from "../reader/formats/pdf.js";
import { makePdf } from "../reader/formats/pdf-bytes.test.util.js";
import { builtInReadersFor, createReaderRegistry } from "../reader/formats/registry.js";
import { DEFAULT_READER_LIMITS, type DocumentReader, ReaderSkipError } from "../reader/formats/types.js";
import { TextNode } from "../schema/text-node.js";
import { openFolderIndex } from "./folder-index.js";
import { folderIndexOptions } from "./folder-index-options.test.util.js";
import { SplitPool, splitPoolFor } from "./split-pool.js";
import { openStoreAt } from "./store-location.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-parse-thread-"));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const paragraph = (seed: number) =>
  Array.from(
    { length: 30 },
    (_, index) => `Step ${seed}.${index} drains the queue after ${index} retries.`,
  ).join(" ");

/** A folder of the formats people have: HTML, PDF, a gzipped page, Markdown; a corrupt PDF and an empty page. */
async function docs(): Promise<void> {
  const folder = join(dir, "docs");
  await mkdir(join(folder, "html"), { recursive: true });
  for (let page = 0; page < 6; page++) {
    await writeFile(
      join(folder, "html", `page-${page}.html`),
      `<html><head><title>Page ${page}</title></head><body><nav>Home | Next</nav><h1>Queues ${page}</h1>` +
        `<p>${paragraph(page)}</p><table><tr><th>key</th><th>value</th></tr><tr><td>timeout</td><td>${page}s</td></tr></table>` +
        `<pre><code>retry(queue, ${page})</code></pre><h2>Backoff</h2><p>${paragraph(page + 10)}</p></body></html>`,
    );
  }
  await writeFile(join(folder, "html", "empty.html"), "<html><body><nav></nav></body></html>");
  const pdfText = (page: number) =>
    Array.from({ length: 8 }, (_, line) => ({
      x: 72,
      y: 700 - line * 20,
      size: 11,
      text: `Page ${page} line ${line}: the worker drains the queue.`,
    }));
  await writeFile(
    join(folder, "guide.pdf"),
    makePdf({ pages: [{ texts: pdfText(1) }, { texts: pdfText(2) }] }),
  );
  await writeFile(join(folder, "broken.pdf"), "%PDF-1.4\nthis is not a PDF body\n");
  await writeFile(join(folder, "README.gz"), gzipSync(`Queue notes\n\n${paragraph(30)}\n`));
  await writeFile(join(folder, "notes.md"), `# Notes\n\n${paragraph(40)}\n\n- retries\n- backoff\n`);
}

/** The index built with `threads`: its chunks (node and hash, in key order), statistics, sources and the build's stats. */
async function builtWith(threads: number) {
  const cacheDir = join(dir, `cache-${threads}`);
  const opened = await openFolderIndex(folderIndexOptions(dir, ["docs"], { cacheDir, threads }));
  await opened.index.saved;
  const store = await openStoreAt(cacheDir);
  try {
    const chunks: unknown[] = [];
    for await (const batch of store.allChunks())
      for (const chunk of batch) chunks.push({ node: chunk.node.toJSON(), contentHash: chunk.contentHash });
    const postings = await Promise.all(
      ["queue", "drains", "timeout", "page"].map((term) => store.postings(term)),
    );
    return {
      stats: opened.stats,
      content: { chunks, postings, statistics: await store.statistics(), sources: await store.sources() },
    };
  } finally {
    await store.close();
  }
}

describe("a folder index's files parsed in worker threads", () => {
  it("gives the same index, counts and skips as parsing in this thread, no file parsed here", async () => {
    await docs();
    const readHere = [htmlReader, pdfReader, markdownReader].map((reader) => vi.spyOn(reader, "read"));
    const here = await builtWith(0);
    const calledHere = readHere.map((spy) => spy.mock.calls.length);
    expect(calledHere).toEqual([7, 2, 1]);
    for (const spy of readHere) spy.mockClear();
    const parse = vi.spyOn(SplitPool.prototype, "parse");
    const threaded = await builtWith(2);
    // Every file went to a thread (the gzip's inner text too, read there by its own reader); none was parsed here.
    expect(parse).toHaveBeenCalledTimes(11);
    expect(readHere.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0]);
    expect(threaded.stats.threads).toBe(2);
    expect(threaded.content).toEqual(here.content);
    expect(threaded.stats.formats).toEqual({ gzip: 1, html: 6, markdown: 1, pdf: 1 });
    expect(threaded.stats.formats).toEqual(here.stats.formats);
    // The reader's skips (what it threw in the thread) keep their code and reason.
    expect(threaded.stats.skipped).toEqual(here.stats.skipped);
    expect(threaded.stats.skipped.map((entry) => [entry.path.slice(dir.length + 1), entry.code])).toEqual([
      ["docs/broken.pdf", "corrupt"],
      ["docs/html/empty.html", "empty"],
    ]);
  });
});

describe("SplitPool.parse", () => {
  const pending = [new TextNode({ id: "a.md", text: "", metadata: { file_size: 2 * 1024 * 1024 } })];
  const registry = createReaderRegistry();
  const input = (text: string | Uint8Array, path: string) => ({
    bytes: typeof text === "string" ? new TextEncoder().encode(text) : text,
    path,
    limits: DEFAULT_READER_LIMITS,
  });

  it("answers what the reader makes here, throws what it throws here, and leaves a reader given as code here", async () => {
    const pool = splitPoolFor(1, undefined, pending, false) as SplitPool;
    try {
      const markdown = input("# Title\n\nSome text.\n\n```ts\nretry()\n```\n", "docs/a.md");
      const chosen = registry.readerFor("a.md");
      if (!chosen) throw new Error("expected the Markdown reader");
      expect(await pool.parse({}, chosen, markdown)).toEqual(await markdownReader.read(markdown));
      // The caller's bytes stay usable (the thread was sent a copy).
      expect(new TextDecoder().decode(markdown.bytes)).toContain("Some text.");

      const broken = input("%PDF-1.4\nnot a body\n", "docs/b.pdf");
      const pdf = registry.readerFor("b.pdf");
      if (!pdf) throw new Error("expected the PDF reader");
      const thrownHere = await Promise.resolve(pdfReader.read(broken)).catch((error: unknown) => error);
      const thrownThere = await pool.parse({}, pdf, broken).catch((error: unknown) => error);
      expect(ReaderSkipError.isInstance(thrownHere)).toBe(true);
      expect(thrownThere).toBeInstanceOf(ReaderSkipError);
      expect(thrownThere).toMatchObject({
        code: (thrownHere as ReaderSkipError).code,
        message: (thrownHere as ReaderSkipError).message,
      });

      // A reader passed in as code has no twin in a thread: the caller parses it.
      const own: DocumentReader = { format: "log", extensions: [".log"], read: () => ({ blocks: [] }) };
      expect(
        await pool.parse({}, { reader: own, id: "log@custom" }, input("x", "docs/c.log")),
      ).toBeUndefined();
      // `readAs` makes the thread's registry: `.txt` read as Markdown there too, else the reader differs.
      const readAs = { ".txt": "markdown" };
      const asMarkdown = createReaderRegistry({ readers: builtInReadersFor(readAs) }).readerFor("d.txt");
      if (!asMarkdown) throw new Error("expected .txt read as Markdown");
      const text = input("# Heading\n\nBody.\n", "docs/d.txt");
      expect(await pool.parse({}, asMarkdown, text)).toBeUndefined();
      expect(await pool.parse(readAs, asMarkdown, text)).toEqual(await markdownReader.read(text));
      // Plain text and code are parsed by the caller: cutting them costs less than sending them.
      for (const name of ["e.txt", "f.py"]) {
        const chosenHere = registry.readerFor(name);
        if (!chosenHere) throw new Error(`expected a reader for ${name}`);
        expect(
          await pool.parse({}, chosenHere, input("def f():\n    return 1\n", `docs/${name}`)),
        ).toBeUndefined();
      }
      expect(pool.filesParsed).toBe(3);
    } finally {
      await pool.terminate();
    }
    // After its threads ended, nothing waits: the caller parses.
    const chosen = registry.readerFor("a.md");
    if (!chosen) throw new Error("expected the Markdown reader");
    expect(await pool.parse({}, chosen, input("# A\n", "docs/a.md"))).toBeUndefined();
  });
});
