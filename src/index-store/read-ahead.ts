import type { TextNode } from "../schema/text-node.js";
import type { StoredSource } from "../store/index-store.js";
import type { AnalyzedChunk } from "./analyzed-chunk.js";
import type { BuildReadDocument, FileParser } from "./build-index-options.js";
import type { SplitPool } from "./split-pool.js";

// The reads of a build (store-build.ts): files read a few ahead of the one being split, so a file's read overlaps
// the splitting before it; with worker threads, documents sent to them a few ahead of the one being written.

/** Documents read ahead of the one being split (`readDocument`), so a file's read overlaps the splitting before it. */
const READ_AHEAD = 4;
/**
 * Bytes of files (their size on disk) read ahead at most: the document asked for is always read, the ones after it
 * only while the reads started ahead of it stay under this. Reading a PDF holds a few tens of times its size (PDF.js's objects), and
 * four large PDFs in flight took a first index of Debian's TeX Live docs (308 PDFs) to ~800 MB.
 */
const READ_AHEAD_BYTES = 4 * 1024 * 1024;

/**
 * The documents to split, in order, each read by `readDocument` (when given) at most {@link READ_AHEAD} ahead of
 * the one asked for: the reads already started for documents not yet asked for are all that is held beside the
 * group. A read left behind by an abort is settled quietly (the abort is what the build reports).
 */
export function readingAhead(
  pending: readonly TextNode[],
  readDocument: BuildReadDocument | undefined,
  before: ReadonlyMap<string, StoredSource>,
  parser: FileParser | undefined,
): { next(index: number): Promise<TextNode | undefined | "same-bytes"> } {
  if (!readDocument) return { next: async (index) => pending[index] };
  const threads = parser ? { parser } : {};
  // Bytes read by another reader (a new version, another format for the ending) make another document: read whole.
  const read = (document: TextNode) => {
    const stored = before.get(document.id);
    return stored?.bytesHash !== undefined && stored.reader === document.metadata.reader
      ? readDocument(document, { unlessBytesHash: stored.bytesHash, ...threads })
      : readDocument(document, threads);
  };
  // With threads (`parser`), `splittingAhead` asks for the documents in order, as far ahead as its own window goes:
  // reading ahead of each of those too stacked a second window on it (3 MB files: three read at once, not two).
  return startedAhead(pending, parser ? 0 : READ_AHEAD, (index) => read(pending[index] as TextNode));
}

/**
 * Work on the documents of a build, started by `start` for the one asked for (each in order, once) and for up to
 * `count` after it within {@link READ_AHEAD_BYTES} of files (their size on disk): what was started for documents not
 * yet asked for is all it holds. Work left behind by an abort is settled quietly (the abort is what the build
 * reports).
 */
function startedAhead<T>(
  pending: readonly TextNode[],
  count: number,
  start: (index: number) => Promise<T>,
): { next(index: number): Promise<T> } {
  const started = new Map<number, Promise<T>>();
  let ahead = 0;
  // The sizes of the documents started ahead of the one asked for, not yet asked for themselves.
  const aheadSizes = new Map<number, number>();
  let aheadBytes = 0;
  return {
    next(index) {
      aheadBytes -= aheadSizes.get(index) ?? 0;
      aheadSizes.delete(index);
      for (; ahead < pending.length && ahead <= index + count; ahead++) {
        if (ahead > index) {
          const size = pending[ahead]?.metadata.file_size;
          const bytes = typeof size === "number" && size > 0 ? size : 0;
          if (aheadBytes + bytes > READ_AHEAD_BYTES) break;
          aheadSizes.set(ahead, bytes);
          aheadBytes += bytes;
        }
        const work = start(ahead);
        work.catch(() => {});
        started.set(ahead, work);
      }
      const work = started.get(index) as Promise<T>;
      started.delete(index);
      return work;
    },
  };
}

/** A document of a build as the build takes it: read (or not: skipped, the same bytes) and, with threads, split. */
export type Prepared =
  | "same-bytes"
  | undefined
  | {
      document: TextNode;
      /** Its chunks, split in a worker thread; `undefined` when the build splits it itself. */
      chunks: AnalyzedChunk[] | undefined;
    };

/**
 * Documents sent to the threads ahead of the one the build writes, per thread. Small files starve a thread at fewer:
 * Debian's /usr/share/doc (3,858 files read, most a few kilobytes of gzip) took 64.9 s with one thread at 64 per
 * thread against 65.2 s without a thread, and 53.8 s and 59.5 s at 256 (2 cores; two runs at 256, one of each
 * other; peak memory 750, 538 and 808–813 MB); the 30.6 MB corpus 5.64–5.88 s at 64, 5.48–5.57 s at 256 (443–446
 * against 453–460 MB). The bytes ahead stay within {@link READ_AHEAD_BYTES}.
 */
const SPLIT_AHEAD = 256;

/**
 * The documents of a build, read in order by `reading` and each sent to `pool` once read: up to {@link SPLIT_AHEAD}
 * per thread ahead of the one the build writes, within {@link READ_AHEAD_BYTES} of files (all read at once, as
 * `readingAhead`'s are), so the threads are not idle while the build writes a group (a window of two per thread left
 * them waiting).
 */
export function splittingAhead(
  pending: readonly TextNode[],
  reading: { next(index: number): Promise<TextNode | undefined | "same-bytes"> },
  pool: SplitPool,
): { next(index: number): Promise<Prepared> } {
  return startedAhead(pending, SPLIT_AHEAD * pool.threads, (index) =>
    reading.next(index).then(async (document): Promise<Prepared> => {
      if (document === undefined || document === "same-bytes") return document;
      return { document, chunks: await pool.split(document) };
    }),
  );
}
