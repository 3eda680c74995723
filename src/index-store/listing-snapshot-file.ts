// The files a folder's listing is remembered in beside its index: `listing.json` (the snapshot of a listing, see
// listing-snapshot-make.ts) and `listing.changes.json` (what later runs changed in it: a few files' entries, the rows'
// version, so an edit of one file does not write the listing of every file again); what they hold, how they are
// written, and how they are read back, as untrusted input. Checking a snapshot against the folder and making a
// listing from it is listing-snapshot.ts's.
import { readFileSync, renameSync, rmSync, type Stats, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SkippedPath } from "../reader/index.js";

/** The file beside a cache folder's index. */
export const LISTING_SNAPSHOT_FILE = "listing.json";

/**
 * The file beside {@link LISTING_SNAPSHOT_FILE} holding the entries of the files that changed since it was written,
 * and the rows' version now: read with it, it is the listing remembered last. Its `generation` names the listing it
 * changes; beside another one (a listing written again since), it is not used.
 */
export const LISTING_CHANGES_FILE = "listing.changes.json";

/**
 * The layout of both files; another one is not read. 2: the listing has a `generation`, and the changes file is
 * read with it (1 had neither). 3: the listing names its folders' symbolic links (2 was never written for a folder
 * that had one).
 */
const FORMAT = 3;

/**
 * The most changed files' entries kept in {@link LISTING_CHANGES_FILE}; past them the listing is written again
 * whole. At 6,220 files the listing's JSON is 1.17 MB: writing it again took an ask right after an edit 7–12 ms
 * (JSON.stringify, the write, the rename over the old file), the changes file well under 1 ms.
 */
const MAX_CHANGED_FILES = 256;

/** A document remembered: `[format, reader, lastModifiedAt]` as the store holds it. */
export type RememberedDocument = [format: string, reader: string, lastModifiedAt: string];

/** A file: where its `lstat` is taken, its id, its size and time then (-1: look again), and whether it is a document. */
export type RememberedFile = [
  path: string,
  id: string,
  size: number,
  modifiedMs: number,
  document: RememberedDocument | null,
];

/** What a path the walk's rules look at held: absent (null), present (a `.git`), or a file's size and time. */
export type RuleState = null | "present" | [size: number, modifiedMs: number];

export interface Snapshot {
  key: string;
  /** The names the roots' files are listed under (`namesAsStored`), and the folder they are named from. */
  names: Record<string, string>;
  namesFrom: string;
  /** The store's `sourcesVersion` when its rows were found to be these documents (none: the store keeps none). */
  sourcesVersion?: number | undefined;
  folders: [path: string, modifiedMs: number][];
  /**
   * The symbolic links among the folders' entries and the real paths they led to (null: none): a link led elsewhere
   * since (an alternative re-pointed) changes what the folder lists without changing any time looked at.
   */
  links: [path: string, real: string | null][];
  /** `.git` markers and ignore files above the roots, and the ignore files of the folders walked. */
  rules: [path: string, state: RuleState][];
  files: RememberedFile[];
  skipped: SkippedPath[];
  formats: Record<string, number>;
}

/** {@link LISTING_SNAPSHOT_FILE}'s JSON: a listing, its layout, and the name {@link LISTING_CHANGES_FILE} knows it by. */
interface StoredSnapshot extends Snapshot {
  format: typeof FORMAT;
  generation: string;
}

/** {@link LISTING_CHANGES_FILE}'s JSON: the changed files' entries by their place in the listing's `files`. */
interface StoredChanges {
  format: typeof FORMAT;
  generation: string;
  /** The rows' version of the listing as changed (null: none). */
  sourcesVersion: number | null;
  files: [index: number, file: RememberedFile][];
}

/** Removes a remembered listing (a rebuild, a listing that cannot be remembered). */
export function forgetListing(folder: string): void {
  removeQuietly(join(folder, LISTING_SNAPSHOT_FILE));
  removeQuietly(join(folder, LISTING_CHANGES_FILE));
}

/** Removes a file if it is there; one that cannot be removed (a folder put in its place) stays, and is not read. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Not a file of ours: readSnapshot passes it over.
  }
}

/** A file as last read: its path, inode, size and time, and what it held (undefined: nothing usable). */
interface ReadFile<T> {
  path: string;
  ino: number;
  size: number;
  modifiedMs: number;
  value: T | undefined;
}

/**
 * The listing and changes files last read: an ask checks the remembered listing twice, and a 6,000-file one takes
 * ~10 ms to parse. Both are written by rename (a new inode each time), so a file written again is never taken for
 * the one read.
 */
let lastListing: ReadFile<StoredSnapshot> | undefined;
let lastChanges: ReadFile<StoredChanges> | undefined;

/** `path` parsed and checked by `check`, or the value read last when the file is still the one read then. */
function readJson<T>(
  path: string,
  last: ReadFile<T> | undefined,
  check: (value: unknown) => value is T,
): ReadFile<T> | undefined {
  try {
    const stats = statSync(path);
    if (last?.path === path && isFileRead(stats, last)) return last;
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    // Written by this module, but a file in a folder others can write: anything unlike it is not used.
    return {
      path,
      ino: stats.ino,
      size: stats.size,
      modifiedMs: stats.mtimeMs,
      value: check(parsed) ? parsed : undefined,
    };
  } catch {
    return undefined;
  }
}

/** The listing remembered in `folder` under `key`, with the changes written beside it since; undefined when none. */
export function readSnapshot(folder: string, key: string): Snapshot | undefined {
  lastListing = readJson(join(folder, LISTING_SNAPSHOT_FILE), lastListing, isSnapshot);
  const listing = lastListing?.value;
  if (listing?.key !== key) return undefined;
  lastChanges = readJson(join(folder, LISTING_CHANGES_FILE), lastChanges, isChanges);
  const changes = lastChanges?.value;
  return changes ? withChanges(listing, changes) : listing;
}

/**
 * `listing` with `changes` applied, when they are its own (its generation) and each names one of its files by the
 * same path and id; else `listing` as written (an older listing: the checks against the folder and the store's rows
 * find what changed since, as they find it for any listing).
 */
function withChanges(listing: StoredSnapshot, changes: StoredChanges): Snapshot {
  if (changes.generation !== listing.generation) return listing;
  const files = listing.files.slice();
  for (const [index, file] of changes.files) {
    const before = files[index];
    if (before === undefined || before[0] !== file[0] || before[1] !== file[1]) return listing;
    files[index] = file;
  }
  return { ...listing, sourcesVersion: changes.sourcesVersion ?? undefined, files };
}

function isSnapshot(value: unknown): value is StoredSnapshot {
  if (typeof value !== "object" || value === null) return false;
  const snapshot = value as Partial<StoredSnapshot>;
  return (
    snapshot.format === FORMAT &&
    typeof snapshot.generation === "string" &&
    typeof snapshot.key === "string" &&
    typeof snapshot.names === "object" &&
    snapshot.names !== null &&
    Object.values(snapshot.names).every((name) => typeof name === "string") &&
    typeof snapshot.namesFrom === "string" &&
    (snapshot.sourcesVersion === undefined || Number.isSafeInteger(snapshot.sourcesVersion)) &&
    Array.isArray(snapshot.folders) &&
    snapshot.folders.every(
      (entry) => Array.isArray(entry) && typeof entry[0] === "string" && typeof entry[1] === "number",
    ) &&
    Array.isArray(snapshot.links) &&
    snapshot.links.every(
      (entry) =>
        Array.isArray(entry) &&
        entry.length === 2 &&
        typeof entry[0] === "string" &&
        (entry[1] === null || typeof entry[1] === "string"),
    ) &&
    Array.isArray(snapshot.rules) &&
    snapshot.rules.every((entry) => Array.isArray(entry) && typeof entry[0] === "string") &&
    Array.isArray(snapshot.files) &&
    everyRememberedFile(snapshot.files) &&
    Array.isArray(snapshot.skipped) &&
    typeof snapshot.formats === "object" &&
    snapshot.formats !== null
  );
}

function isChanges(value: unknown): value is StoredChanges {
  if (typeof value !== "object" || value === null) return false;
  const changes = value as Partial<StoredChanges>;
  return (
    changes.format === FORMAT &&
    typeof changes.generation === "string" &&
    (changes.sourcesVersion === null || Number.isSafeInteger(changes.sourcesVersion)) &&
    Array.isArray(changes.files) &&
    changes.files.length <= MAX_CHANGED_FILES &&
    changes.files.every(
      (change) =>
        Array.isArray(change) &&
        change.length === 2 &&
        Number.isSafeInteger(change[0]) &&
        change[0] >= 0 &&
        isRememberedFile(change[1]),
    )
  );
}

/**
 * Whether every entry is a {@link RememberedFile}. One loop of indexed reads: at 6,220 files, `every` with a
 * destructuring check (the iterator protocol, in code run once a process) took 6–9 ms of an ask, this ~1.5 ms.
 */
function everyRememberedFile(files: readonly unknown[]): boolean {
  for (let index = 0; index < files.length; index++) if (!isRememberedFile(files[index])) return false;
  return true;
}

function isRememberedFile(entry: unknown): entry is RememberedFile {
  if (
    !Array.isArray(entry) ||
    entry.length !== 5 ||
    typeof entry[0] !== "string" ||
    typeof entry[1] !== "string" ||
    typeof entry[2] !== "number" ||
    typeof entry[3] !== "number"
  )
    return false;
  const document: unknown = entry[4];
  return (
    document === null ||
    (Array.isArray(document) &&
      document.length === 3 &&
      typeof document[0] === "string" &&
      typeof document[1] === "string" &&
      typeof document[2] === "string")
  );
}

/**
 * Remembers `snapshot` in `folder`: as changes beside the listing there when it is that listing (as this process
 * read it, still the file there) with a few files' entries and the rows' version changed, else as the listing
 * written again whole (and no changes beside it).
 */
export function writeSnapshot(folder: string, snapshot: Snapshot): void {
  const path = join(folder, LISTING_SNAPSHOT_FILE);
  const changesPath = join(folder, LISTING_CHANGES_FILE);
  const read = lastListing?.path === path ? lastListing.value : undefined;
  const changes = read && stillThere(path) ? changesFrom(read, snapshot) : undefined;
  if (changes) {
    writeWhole(changesPath, changes);
    return;
  }
  const generation = `${Date.now().toString(36)}-${process.pid.toString(36)}-${Math.random().toString(36).slice(2)}`;
  // The listing first, then its old changes removed: a reader between the two finds changes of another generation.
  if (writeWhole(path, { ...snapshot, format: FORMAT, generation })) removeQuietly(changesPath);
}

/** Whether `path` is still the listing file last read (not written since by another process). */
function stillThere(path: string): boolean {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats !== undefined && lastListing !== undefined && isFileRead(stats, lastListing);
}

/** Whether a file's `stats` are those of the file `read` was read from (same inode, size and time). */
function isFileRead(stats: Stats, read: ReadFile<unknown>): boolean {
  return stats.ino === read.ino && stats.size === read.size && stats.mtimeMs === read.modifiedMs;
}

/**
 * `snapshot` as changes of `listing`: when it was made from it (the same key, names, folders, rules, skipped files
 * and formats, as objects: a listing made anew has its own) and differs in at most {@link MAX_CHANGED_FILES} files'
 * entries, each for the same path and id. Undefined otherwise.
 */
function changesFrom(listing: StoredSnapshot, snapshot: Snapshot): StoredChanges | undefined {
  if (
    snapshot.key !== listing.key ||
    snapshot.namesFrom !== listing.namesFrom ||
    snapshot.names !== listing.names ||
    snapshot.folders !== listing.folders ||
    snapshot.rules !== listing.rules ||
    snapshot.skipped !== listing.skipped ||
    snapshot.formats !== listing.formats ||
    snapshot.files.length !== listing.files.length
  )
    return undefined;
  const files: StoredChanges["files"] = [];
  for (let index = 0; index < snapshot.files.length; index++) {
    const file = snapshot.files[index] as RememberedFile;
    const before = listing.files[index] as RememberedFile;
    if (file === before) continue;
    if (file[0] !== before[0] || file[1] !== before[1] || files.length === MAX_CHANGED_FILES)
      return undefined;
    files.push([index, file]);
  }
  return {
    format: FORMAT,
    generation: listing.generation,
    sourcesVersion: snapshot.sourcesVersion ?? null,
    files,
  };
}

/** Writes `value`'s JSON to `path` whole (a temporary file, renamed); false when it could not be written. */
function writeWhole(path: string, value: StoredSnapshot | StoredChanges): boolean {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, JSON.stringify(value));
    renameSync(temporary, path);
    return true;
  } catch {
    // Only a faster next check is lost.
    removeQuietly(temporary);
    return false;
  }
}
