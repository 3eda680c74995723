import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { getDocumentBlocks } from "../reader/document-blocks.js";
import type { ChosenReader } from "../reader/formats/registry.js";
import type { ReaderInput, ReadFileResult } from "../reader/formats/types.js";
import { TextNode } from "../schema/text-node.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import { rankTableCodeCacheDir, tokenizerCacheDir } from "../tokenizer/cache-dir.js";
import type { AnalyzedChunk } from "./analyzed-chunk.js";
import type { NodeParser } from "./build-index-options.js";
import { type ParseReply, type ParseRequest, parsedResult } from "./parse-thread.js";
import type { SplitReply, SplitRequest, SplitThreadSettings } from "./split-thread.js";

// An index build's worker threads (store-build.ts): the build lists and reads its files and writes its store in the
// main thread, and sends each file's bytes to one of these to be parsed (a folder index's built-in readers), and each
// document to one to be split, analyzed and encoded, the documents' chunks coming back in the build's order.
// Splitting is most of a first index's time on text and Markdown (tokens counted, sentences found, terms analyzed,
// rows deflated), parsing on HTML and PDF; the store's writes stay in one thread, as SQLite wants them.

/**
 * Worker threads an index build starts by itself at most: each holds its own tokenizer caches (125–255 MB a thread in
 * BENCHMARKS.md's `threads` figure).
 */
const MAX_AUTO_THREADS = 4;
/**
 * Text a build must have to split (its files' sizes) before it starts worker threads by itself: starting one and
 * loading its code takes tens of milliseconds, a few files' splitting (an ask after an edit) takes less.
 */
const AUTO_MIN_BYTES = 1024 * 1024;
/**
 * The same on 2 or 3 cores, where a build starts one thread: there the build's own reads and writes share the cores
 * with it, and one thread paid for itself only from about 10 MB (2 cores, first index, interleaved: 2.4 MB of
 * Markdown 1.51 s with one thread against 1.44 s without, 10 MB 2.38–2.57 s against 2.42–2.53 s,
 * 30.6 MB 6.2–6.6 s against 6.8–7.4 s).
 */
const AUTO_MIN_BYTES_FEW_CORES = 16 * 1024 * 1024;
/**
 * Formats parsed in the build's own thread even with threads: their readers only decode the bytes and cut them at
 * blank lines, which costs less than sending the bytes to a thread and its blocks back (the bench's 30.6 MB corpus,
 * mostly text, at --threads 2, three interleaved runs: 7.43 s with every file parsed in threads, 6.94 s with these
 * kept here).
 */
const PARSED_HERE = new Set(["text", "code", "csv"]);
/**
 * A document longer than this (characters) is split in the build's own thread: a thread would get a copy of its text
 * and blocks and send its chunks back, for a few hundred megabytes more at once (a 30.6 MB Markdown file, first index,
 * 2 cores: 1,146–1,156 MB of peak memory and 11.2–11.3 s with one thread, 688–692 MB and 9.5–9.7 s without), while
 * the other documents go on in the threads.
 */
const SPLIT_HERE_CHARS = 8 * 1024 * 1024;

/**
 * The pool for a build of `pending` with `splitter`: `threads` workers when given, else (unset) {@link autoThreads}
 * for the bytes it has to split; none (the build splits in its own thread) for 0, a splitter
 * other than a plain `BlockSplitter`, or one whose options cannot be sent to a thread (a custom tokenizer or sentence
 * function).
 */
export function splitPoolFor(
  threads: number | undefined,
  splitter: NodeParser | undefined,
  pending: readonly TextNode[],
  keepVectors: boolean,
): SplitPool | undefined {
  // One document gains nothing from a thread (the build would only wait for it) and costs its copies there.
  const count = threads ?? (pending.length > 1 ? autoThreads(pendingBytes(pending)) : 0);
  if (count < 1 || pending.length === 0) return undefined;
  const block = splitter ?? new BlockSplitter();
  const options =
    block instanceof BlockSplitter && block.constructor === BlockSplitter ? block.plainOptions : undefined;
  if (options === undefined) return undefined;
  const folder = tokenizerCacheDir();
  const settings: SplitThreadSettings = {
    splitter: options,
    keepVectors,
    tokenizerCache:
      folder === undefined ? undefined : { folder, compiledCode: rankTableCodeCacheDir() !== undefined },
  };
  return new SplitPool(count, settings);
}

/**
 * The worker threads a build of `bytes` (its files' sizes) starts by itself on `cores`: from 4 cores, one per core
 * but the build's own, up to {@link MAX_AUTO_THREADS}, from {@link AUTO_MIN_BYTES}; on 2 or 3, one, from
 * {@link AUTO_MIN_BYTES_FEW_CORES}; on one core, none. On 2 cores the build's own thread (listing, reading,
 * writing the store) is busy less than half the time beside one worker thread, which splits: the first index
 * without against with one thread (2 cores, by the bench's launcher, interleaved) took the 30.6 MB corpus 6.8–7.4 s
 * against 6.2–6.6 s (peak memory 301–309 against 420–433 MB), three copies of it (92 MB) 21.3–22.7 s against
 * 18.5–19.8 s (382–399 against 509–519 MB), ten (306.5 MB) 76.0 s against 66.0 s (433 against 552 MB). A second
 * thread there took the 306.5 MB one to 57–61 s for 747–856 MB, so it is asked for (`threads: 2`), not assumed.
 */
export function autoThreads(bytes: number, cores: number = availableParallelism()): number {
  if (cores >= 4) return bytes >= AUTO_MIN_BYTES ? Math.min(cores - 1, MAX_AUTO_THREADS) : 0;
  if (cores >= 2) return bytes >= AUTO_MIN_BYTES_FEW_CORES ? 1 : 0;
  return 0;
}

/** The bytes `pending` has to split: each document's file size where it is listed unread, else its text's length. */
export function pendingBytes(pending: readonly TextNode[]): number {
  let bytes = 0;
  for (const document of pending) {
    const size = document.metadata.file_size;
    bytes += typeof size === "number" && size > 0 ? size : document.text.length;
  }
  return bytes;
}

interface PoolWorker {
  worker: Worker;
  /** Requests sent and not answered yet, by sequence number. */
  waiting: Map<number, (reply: SplitReply | ParseReply | undefined) => void>;
  alive: boolean;
}

/**
 * Worker threads that parse files' bytes and split documents. {@link SplitPool.split} and {@link SplitPool.parse}
 * answer `undefined` for what they cannot do (a document that is not a plain `TextNode`, metadata that cannot be
 * sent, a splitter error, a reader the thread does not have, a thread that died): the build does that one itself,
 * so nothing is lost and an error is thrown with its own type.
 */
export class SplitPool {
  readonly threads: number;
  readonly #workers: PoolWorker[] = [];
  #seq = 0;
  #split = 0;
  #parsed = 0;
  #failure: string | undefined;

  constructor(threads: number, settings: SplitThreadSettings) {
    this.threads = threads;
    const { url, sourceEntry } = workerEntry();
    for (let index = 0; index < threads; index++) {
      const worker = new Worker(url, {
        workerData: sourceEntry ? { ...settings, sourceEntry } : settings,
        // Not the caller's Node options: a thread would take them as its own (`node --input-type=module -e …`
        // left every thread failing to start: its entry is a file), and it needs none.
        execArgv: [],
      });
      const entry: PoolWorker = { worker, waiting: new Map(), alive: true };
      const lost = () => {
        entry.alive = false;
        for (const answer of entry.waiting.values()) answer(undefined);
        entry.waiting.clear();
      };
      worker.on("message", (reply: SplitReply | ParseReply | { saved: true }) => {
        if (!("seq" in reply)) return;
        const answer = entry.waiting.get(reply.seq);
        entry.waiting.delete(reply.seq);
        answer?.(reply);
      });
      worker.on("error", (error: Error) => {
        this.#failure ??= error.message;
        lost();
      });
      worker.on("exit", lost);
      // A reply that could not be read here: which request it answered is unknown, so the thread is given up.
      worker.on("messageerror", () => {
        lost();
        void worker.terminate();
      });
      this.#workers.push(entry);
    }
  }

  /** Documents a thread split (the others were answered `undefined`). */
  get documentsSplit(): number {
    return this.#split;
  }

  /** The error of the first thread that failed (to start, or later), if one did. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** Files whose bytes a thread parsed (a reader's skip included; the others were answered `undefined`). */
  get filesParsed(): number {
    return this.#parsed;
  }

  /**
   * The chunks of `document` split in a worker, or `undefined` when it must be split in this thread (one longer than
   * {@link SPLIT_HERE_CHARS} is).
   */
  async split(document: TextNode): Promise<AnalyzedChunk[] | undefined> {
    if (document.constructor !== TextNode || document.text.length > SPLIT_HERE_CHARS) return undefined;
    const reply = (await this.#send((seq) => ({
      seq,
      document: document.toJSON(),
      blocks: getDocumentBlocks(document),
    }))) as SplitReply | undefined;
    if (!reply || "failed" in reply) return undefined;
    this.#split++;
    const rows = Buffer.from(reply.rows);
    return reply.chunks.map((chunk, index) => ({
      node: {
        id: chunk.id,
        encoded: rows.subarray(index === 0 ? 0 : reply.ends[index - 1], reply.ends[index]),
      },
      contentHash: chunk.contentHash,
      terms: chunk.terms,
      holdsImage: chunk.holdsImage,
      ...(chunk.content === undefined ? {} : { content: chunk.content }),
    }));
  }

  /**
   * What the reader `chosen` (a built-in one, by `readAs`) makes of a file's bytes, parsed in a worker; `undefined`
   * when it must be parsed in this thread. Throws what the reader threw, as `parsedResult` gives it.
   */
  async parse(
    readAs: Readonly<Record<string, string>>,
    chosen: ChosenReader,
    input: ReaderInput,
  ): Promise<ReadFileResult | undefined> {
    if (PARSED_HERE.has(chosen.reader.format)) return undefined;
    // The thread gets its own copy of the bytes (moved, not copied again): the caller's stay usable. (A Buffer's
    // `slice` is a view of the same memory, so the copy is made as a plain Uint8Array.)
    const bytes = new Uint8Array(input.bytes);
    const reply = (await this.#send(
      (seq) => ({
        seq,
        parse: { readAs, readerId: chosen.id, path: input.path, bytes, limits: input.limits },
      }),
      [bytes.buffer],
    )) as ParseReply | undefined;
    if (reply && !("cannot" in reply)) this.#parsed++;
    return parsedResult(reply);
  }

  /** Sends a request to the thread with the fewest waiting; its reply, or `undefined` when none can take it. */
  async #send(
    request: (seq: number) => SplitRequest | ParseRequest,
    transfer: ArrayBuffer[] = [],
  ): Promise<SplitReply | ParseReply | undefined> {
    let chosen: PoolWorker | undefined;
    for (const entry of this.#workers)
      if (entry.alive && (!chosen || entry.waiting.size < chosen.waiting.size)) chosen = entry;
    if (!chosen) return undefined;
    const target = chosen;
    const seq = this.#seq++;
    return await new Promise<SplitReply | ParseReply | undefined>((resolve) => {
      try {
        target.worker.postMessage(request(seq), transfer);
        target.waiting.set(seq, resolve);
      } catch {
        // What a thread cannot be sent (metadata holding a function, a class instance of a custom reader's).
        resolve(undefined);
      }
    });
  }

  /**
   * Ends the threads once the build is done: with a tokenizer cache, each first saves the counts of the pieces it
   * met, one after another (each merges into the table the one before wrote), as the main thread does at its end.
   */
  async close(): Promise<void> {
    if (tokenizerCacheDir() !== undefined) {
      for (const entry of this.#workers) {
        if (!entry.alive) continue;
        await new Promise<void>((resolve) => {
          const done = () => {
            entry.worker.off("message", saved);
            entry.worker.off("exit", done);
            resolve();
          };
          const saved = (reply: { saved?: true }) => {
            if (reply.saved) done();
          };
          entry.worker.on("message", saved);
          entry.worker.on("exit", done);
          entry.worker.postMessage({ save: true });
        });
      }
    }
    await this.terminate();
  }

  /** Ends the threads now (an aborted or failed build): what they were splitting is answered `undefined`. */
  async terminate(): Promise<void> {
    await Promise.all(this.#workers.map((entry) => entry.worker.terminate()));
  }
}

/**
 * The worker's code: the bundled `dist/index-store/split-worker.js` of the package whose bundle holds this code
 * (`dist/index.js`, a chunk in `dist/chunks/` or `dist/cli/cli.cjs`: found from the last `/dist/` of its URL), or,
 * running from the TypeScript sources (tests), split-worker.ts through tsx.
 */
function workerEntry(): { url: URL; sourceEntry?: string } {
  const here = import.meta.url;
  if (here.endsWith(".ts")) {
    return {
      url: new URL("./split-worker-from-sources.mjs", here),
      sourceEntry: new URL("./split-worker.ts", here).href,
    };
  }
  const dist = here.lastIndexOf("/dist/");
  return {
    url:
      dist < 0
        ? new URL("../index-store/split-worker.js", here)
        : new URL("index-store/split-worker.js", here.slice(0, dist + "/dist/".length)),
  };
}
