import { join } from "node:path";
import type { ReaderSkipCode } from "../reader/formats/types.js";
import type { SkippedPath } from "../reader/index.js";
import type { TextNode } from "../schema/text-node.js";
import {
  type FileFingerprint,
  fingerprintOfListed,
  isFileFingerprint,
  loadMemoryFile,
  RunMemory,
  sameFingerprint,
  saveMemoryFile,
} from "./memory-file.js";

/**
 * Files a folder's index read and had to skip (binary, not UTF-8, a PDF without text…), each with the size,
 * modification time and reader it had then, kept beside the index (`skipped-reads.json` in the cache folder) so the
 * next run reports them again without reading them: on Debian's /usr/share/doc, 71 such files (10 MB, some
 * compressed) were read again by every `ask`. The fingerprint is the one the index trusts for its own files; a new
 * reader version reads them again.
 */
export interface SkippedRead extends FileFingerprint {
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
  return loadMemoryFile(join(folder, SKIPPED_READS_FILE), FORMAT, isSkippedRead);
}

/**
 * Writes `reads` into `folder` when they differ from `before`, what {@link loadSkippedReads} gave; removes the file
 * when there are none. A folder that cannot be written is left as it is: the files are read again next time.
 */
export function saveSkippedReads(
  folder: string,
  reads: ReadonlyMap<string, SkippedRead>,
  before: ReadonlyMap<string, SkippedRead>,
): void {
  saveMemoryFile(join(folder, SKIPPED_READS_FILE), FORMAT, { entries: reads, before }, skippedReadFields);
}

function skippedReadFields({ size, lastModifiedAt, reader, code, reason }: SkippedRead): SkippedRead {
  return { size, lastModifiedAt, reader, code, reason };
}

function isSkippedRead(entry: unknown): entry is SkippedRead {
  if (!isFileFingerprint(entry)) return false;
  const { code, reason } = entry as Partial<Record<keyof SkippedRead, unknown>>;
  return (
    typeof code === "string" &&
    remembersSkip(code) &&
    typeof reason === "string" &&
    reason.length <= MAX_REASON &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    !/[\u0000-\u001f\u007f-\u009f]/.test(reason)
  );
}

/**
 * One run's use of the skipped reads kept in a folder (the cache folder; for a PostgreSQL store, this machine's
 * folder of it; `folder` undefined: none kept): {@link answer} says a file's earlier skip when the file is as it was then,
 * {@link noteSkipped} takes this run's, and {@link save} keeps what this run met for the next one.
 */
export class SkippedReadsMemory {
  readonly #memory: RunMemory<SkippedRead>;

  constructor(folder: string | undefined, { forget = false } = {}) {
    this.#memory = new RunMemory(folder === undefined ? undefined : join(folder, SKIPPED_READS_FILE), {
      format: FORMAT,
      isEntry: isSkippedRead,
      fields: skippedReadFields,
      forget,
    });
  }

  /** The skip reading this file gave before, when it has the same size, time and reader; else undefined. */
  answer(file: {
    path: string;
    size: number;
    lastModifiedAt: string;
    reader: string;
  }): { code: ReaderSkipCode; reason: string } | undefined {
    const before = this.#memory.earlier(file.path);
    if (!before || !sameFingerprint(before, file)) return undefined;
    this.#memory.keep(file.path, before);
    return { code: before.code, reason: before.reason };
  }

  /** A listed document whose read gave nothing, and why (kept when its bytes decided it). */
  noteSkipped(document: TextNode, why: SkippedPath | undefined): void {
    const fingerprint = fingerprintOfListed(document);
    if (why && remembersSkip(why.code) && fingerprint)
      this.#memory.keep(document.id, { ...fingerprint, code: why.code, reason: why.reason });
  }

  /** Writes this run's skipped reads beside the index, when they changed. */
  save(): void {
    this.#memory.save();
  }
}
