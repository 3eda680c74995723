import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { TextNode } from "../schema/text-node.js";

// A small JSON file of entries by file path that a folder's index keeps for the next run (`{ format, files }`):
// what this machine read and skipped, what it found unchanged. Untrusted when read (the next run acts on it), so
// every entry is checked, and a file that is not one (damaged, foreign, another format) gives none.

/** A file as a run met it: what a kept entry is valid for (the fingerprint the index trusts for its own files). */
export interface FileFingerprint {
  size: number;
  lastModifiedAt: string;
  reader: string;
}

/** Whether an untrusted `entry` holds a well-formed {@link FileFingerprint}. */
export function isFileFingerprint(entry: unknown): entry is FileFingerprint {
  if (typeof entry !== "object" || entry === null) return false;
  const { size, lastModifiedAt, reader } = entry as Partial<Record<keyof FileFingerprint, unknown>>;
  return (
    typeof size === "number" &&
    Number.isSafeInteger(size) &&
    size >= 0 &&
    typeof lastModifiedAt === "string" &&
    typeof reader === "string"
  );
}

/** Whether a kept entry was made for this file as it is now (the same size, time and reader). */
export function sameFingerprint(kept: FileFingerprint | undefined, file: FileFingerprint): boolean {
  return (
    kept !== undefined &&
    kept.size === file.size &&
    kept.lastModifiedAt === file.lastModifiedAt &&
    kept.reader === file.reader
  );
}

/** A listed document's fingerprint from its metadata, when it has all of it. */
export function fingerprintOfListed(document: TextNode): FileFingerprint | undefined {
  const { file_size: size, last_modified_at: lastModifiedAt, reader } = document.metadata;
  return typeof size === "number" && typeof lastModifiedAt === "string" && typeof reader === "string"
    ? { size, lastModifiedAt, reader }
    : undefined;
}

/** The entries kept in `file`, those `isEntry` accepts; none when the file is missing, damaged or of another format. */
export function loadMemoryFile<T>(
  file: string,
  format: number,
  isEntry: (entry: unknown) => entry is T,
): Map<string, T> {
  const kept = new Map<string, T>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return kept;
  }
  if (typeof parsed !== "object" || parsed === null) return kept;
  const { format: found, files } = parsed as { format?: unknown; files?: unknown };
  if (found !== format || typeof files !== "object" || files === null || Array.isArray(files)) return kept;
  for (const [path, entry] of Object.entries(files)) {
    if (isEntry(entry)) kept.set(path, entry);
  }
  return kept;
}

/**
 * Writes `entries` to `file` (whole, through a temporary file renamed over it, its folder made when missing) when
 * they differ from `before`, what {@link loadMemoryFile} gave; removes the file when there are none. `fields` gives
 * what of an entry is written. A place that cannot be written is left as it is: the next run reads the files again,
 * nothing else is lost.
 */
export function saveMemoryFile<T>(
  file: string,
  format: number,
  { entries, before }: { entries: ReadonlyMap<string, T>; before: ReadonlyMap<string, T> },
  fields: (entry: T) => T,
): void {
  const text = serialize(entries, format, fields);
  if (text === serialize(before, format, fields)) return;
  try {
    if (entries.size === 0) {
      rmSync(file, { force: true });
      return;
    }
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch {
    // Read-only or gone: the files are read again next time.
  }
}

function serialize<T>(entries: ReadonlyMap<string, T>, format: number, fields: (entry: T) => T): string {
  const files = Object.fromEntries(
    [...entries]
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
      .map(([path, entry]) => [path, fields(entry)]),
  );
  return `${JSON.stringify({ format, files }, null, 1)}\n`;
}

/**
 * One run's use of a memory file: the entries an earlier run kept ({@link earlier}), the ones this run keeps for the
 * next ({@link keep}: those it used or learned; an entry not kept again goes), and {@link save}. Without a file
 * (`undefined`), nothing is remembered.
 */
export class RunMemory<T> {
  readonly #file: string | undefined;
  readonly #format: number;
  readonly #fields: (entry: T) => T;
  readonly #before: Map<string, T>;
  readonly #now = new Map<string, T>();

  constructor(
    file: string | undefined,
    {
      format,
      isEntry,
      fields,
      forget = false,
    }: { format: number; isEntry: (entry: unknown) => entry is T; fields: (entry: T) => T; forget?: boolean },
  ) {
    this.#file = file;
    this.#format = format;
    this.#fields = fields;
    this.#before = file === undefined || forget ? new Map() : loadMemoryFile(file, format, isEntry);
  }

  /** The entry an earlier run kept for `path`. */
  earlier(path: string): T | undefined {
    return this.#before.get(path);
  }

  /** Keeps `entry` for the next run (nothing without a file). */
  keep(path: string, entry: T): void {
    if (this.#file !== undefined) this.#now.set(path, entry);
  }

  /** Writes what this run kept, when it differs from what it found. */
  save(): void {
    if (this.#file === undefined) return;
    saveMemoryFile(this.#file, this.#format, { entries: this.#now, before: this.#before }, this.#fields);
  }
}
