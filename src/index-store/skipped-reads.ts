import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ReaderSkipCode } from "../reader/formats/types.js";
import type { SkippedPath } from "../reader/index.js";
import type { TextNode } from "../schema/text-node.js";

/**
 * Files a folder's index read and had to skip (binary, not UTF-8, a PDF without text…), each with the size,
 * modification time and reader it had then, kept beside the index (`skipped-reads.json` in the cache folder) so the
 * next run reports them again without reading them: on Debian's /usr/share/doc, 71 such files (10 MB, some
 * compressed) were read again by every `ask`. The fingerprint is the one the index trusts for its own files; a new
 * reader version reads them again.
 */
export interface SkippedRead {
  size: number;
  lastModifiedAt: string;
  reader: string;
  code: ReaderSkipCode;
  reason: string;
}

export const SKIPPED_READS_FILE = "skipped-reads.json";
const FORMAT = 1;
// Skips decided by the file's bytes and its reader alone. `too_large` depends on the limits of the run, and an
// unreadable file (permissions) on more than its size and time: those are read again.
const REMEMBERED: ReadonlySet<string> = new Set<ReaderSkipCode>([
  "binary",
  "invalid_utf8",
  "unsupported",
  "encrypted",
  "no_text_layer",
  "corrupt",
  "empty",
]);
const MAX_REASON = 500;

/** Whether a read's skip is remembered (decided by the file's bytes and reader only). */
export function remembersSkip(code: string): code is ReaderSkipCode {
  return REMEMBERED.has(code);
}

/**
 * The skipped reads kept in `folder`, by `file_path`. A missing, damaged or foreign file gives none (the files are
 * read again); an entry that is not well formed is left out, and a reason with control characters is refused, since
 * it is printed to the terminal.
 */
export function loadSkippedReads(folder: string): Map<string, SkippedRead> {
  const kept = new Map<string, SkippedRead>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(folder, SKIPPED_READS_FILE), "utf8"));
  } catch {
    return kept;
  }
  if (typeof parsed !== "object" || parsed === null) return kept;
  const { format, files } = parsed as { format?: unknown; files?: unknown };
  if (format !== FORMAT || typeof files !== "object" || files === null || Array.isArray(files)) return kept;
  for (const [path, entry] of Object.entries(files)) {
    if (isSkippedRead(entry)) kept.set(path, entry);
  }
  return kept;
}

/**
 * Writes `reads` into `folder` (whole, through a temporary file renamed over it) when they differ from `before`,
 * what {@link loadSkippedReads} gave; removes the file when there are none. A folder that cannot be written is left
 * as it is: the files are read again next time, nothing else is lost.
 */
export function saveSkippedReads(
  folder: string,
  reads: ReadonlyMap<string, SkippedRead>,
  before: ReadonlyMap<string, SkippedRead>,
): void {
  const text = serialize(reads);
  if (text === serialize(before)) return;
  const file = join(folder, SKIPPED_READS_FILE);
  try {
    if (reads.size === 0) {
      rmSync(file, { force: true });
      return;
    }
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch {
    // Read-only or gone: the skipped files are read again next time.
  }
}

function serialize(reads: ReadonlyMap<string, SkippedRead>): string {
  const files = Object.fromEntries(
    [...reads]
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
      .map(([path, { size, lastModifiedAt, reader, code, reason }]) => [
        path,
        { size, lastModifiedAt, reader, code, reason },
      ]),
  );
  return `${JSON.stringify({ format: FORMAT, files }, null, 1)}\n`;
}

function isSkippedRead(entry: unknown): entry is SkippedRead {
  if (typeof entry !== "object" || entry === null) return false;
  const { size, lastModifiedAt, reader, code, reason } = entry as Partial<Record<keyof SkippedRead, unknown>>;
  return (
    typeof size === "number" &&
    Number.isSafeInteger(size) &&
    size >= 0 &&
    typeof lastModifiedAt === "string" &&
    typeof reader === "string" &&
    typeof code === "string" &&
    remembersSkip(code) &&
    typeof reason === "string" &&
    reason.length <= MAX_REASON &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    !/[\u0000-\u001f\u007f-\u009f]/.test(reason)
  );
}

/**
 * One run's use of the skipped reads kept in a cache folder (`folder` undefined: none kept, as for a PostgreSQL
 * store or a rebuild's first read): {@link answer} says a file's earlier skip when the file is as it was then,
 * {@link noteSkipped} takes this run's, and {@link save} keeps what this run met for the next one.
 */
export class SkippedReadsMemory {
  readonly #folder: string | undefined;
  readonly #before: Map<string, SkippedRead>;
  readonly #now = new Map<string, SkippedRead>();

  constructor(folder: string | undefined, { forget = false } = {}) {
    this.#folder = folder;
    this.#before = folder === undefined || forget ? new Map() : loadSkippedReads(folder);
  }

  /** The skip reading this file gave before, when it has the same size, time and reader; else undefined. */
  answer(file: {
    path: string;
    size: number;
    lastModifiedAt: string;
    reader: string;
  }): { code: ReaderSkipCode; reason: string } | undefined {
    const before = this.#before.get(file.path);
    if (
      before?.size !== file.size ||
      before.lastModifiedAt !== file.lastModifiedAt ||
      before.reader !== file.reader
    )
      return undefined;
    this.#now.set(file.path, before);
    return { code: before.code, reason: before.reason };
  }

  /** A listed document whose read gave nothing, and why (kept when its bytes decided it). */
  noteSkipped(document: TextNode, why: SkippedPath | undefined): void {
    const { file_size: size, last_modified_at: lastModifiedAt, reader } = document.metadata;
    if (
      why &&
      remembersSkip(why.code) &&
      typeof size === "number" &&
      typeof lastModifiedAt === "string" &&
      typeof reader === "string"
    )
      this.#now.set(document.id, { size, lastModifiedAt, reader, code: why.code, reason: why.reason });
  }

  /** Writes this run's skipped reads beside the index, when they changed. */
  save(): void {
    if (this.#folder !== undefined) saveSkippedReads(this.#folder, this.#now, this.#before);
  }
}
