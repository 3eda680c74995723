// The file a folder's listing is remembered in beside its index (`listing.json`): what it holds, how a listing is
// made into it (only when nothing in it could have changed unseen), and how it is read back, as untrusted input.
// Checking it against the folder and making a listing from it is listing-snapshot.ts's.
import { lstatSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { READERS_VERSION } from "../reader/formats/registry.js";
import type { DocumentListing, SkippedPath } from "../reader/index.js";
import { foldersAbove, IGNORE_FILES } from "../reader/walk-rules.js";

/** The file beside a cache folder's index. */
export const LISTING_SNAPSHOT_FILE = "listing.json";

/** The layout of {@link LISTING_SNAPSHOT_FILE}; another one is not read. */
const FORMAT = 1;

/**
 * A folder or file whose time lies this close (ms) before the listing's start, or after it, may have changed again
 * within the same tick of the file system's clock after it was looked at: such a listing is not remembered (a file
 * is remembered as changed, so it is listed again next time). A change takes the time of its moment, so a time
 * further ahead than {@link AHEAD_MS} (a clock ahead elsewhere, `touch -d`, an archive's) is not one a change made
 * now can give again: such a file is remembered.
 */
const RACY_MS = 2_000;
const AHEAD_MS = 60_000;

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
  format: typeof FORMAT;
  key: string;
  /** The names the roots' files are listed under (`namesAsStored`), and the folder they are named from. */
  names: Record<string, string>;
  namesFrom: string;
  /** The store's `sourcesVersion` when its rows were found to be these documents (none: the store keeps none). */
  sourcesVersion?: number | undefined;
  folders: [path: string, modifiedMs: number][];
  /** `.git` markers and ignore files above the roots, and the ignore files of the folders walked. */
  rules: [path: string, state: RuleState][];
  files: RememberedFile[];
  skipped: SkippedPath[];
  formats: Record<string, number>;
}

/**
 * The key a listing is remembered under: the roots, their names, the walk's rules and the readers' version. A
 * listing made with anything else is not used.
 */
export function listingKey(parts: Record<string, unknown>): string {
  return JSON.stringify({ ...parts, readers: READERS_VERSION });
}

/** Where a remembered listing is checked: its roots (as given), and when the run started (wall clock). */
export interface SnapshotCheck {
  roots: readonly string[];
  started: { wallMs: number };
}

/**
 * Remembers a folder's full listing in `folder`, once the index holds every document it lists as it is (an
 * unchanged ask or index run); nothing is remembered (and an older one is removed) when the listing met a symbolic
 * link or an image, or when a folder or file walked changed during it or too close to it to tell.
 */
export function rememberListing(
  folder: string,
  key: string,
  listing: DocumentListing,
  settings: RememberSettings,
): void {
  const snapshot = snapshotOf(key, listing, settings);
  if (snapshot) writeSnapshot(folder, snapshot);
  else forgetListing(folder);
}

/** Removes a remembered listing (a rebuild, a listing that cannot be remembered). */
export function forgetListing(folder: string): void {
  rmSync(join(folder, LISTING_SNAPSHOT_FILE), { force: true });
}

/** What a listing is remembered with, beside what it found. */
export interface RememberSettings extends SnapshotCheck {
  noIgnore: boolean;
  names: Record<string, string>;
  namesFrom: string;
  /** The store's `sourcesVersion`, read with the rows the listing was found to hold. */
  sourcesVersion: number | undefined;
}

function snapshotOf(
  key: string,
  listing: DocumentListing,
  { roots, noIgnore, started, names, namesFrom, sourcesVersion }: RememberSettings,
): Snapshot | undefined {
  const { walked } = listing;
  if (walked.links > 0) return undefined;
  const { skipped, formats } = listing.report();
  const documents = new Map(listing.documents.map((document) => [document.id, document]));
  const skippedPaths = new Set(skipped.map((entry) => entry.path));
  const folders: Snapshot["folders"] = [];
  // The rule files read in the folders walked: edited in place, they change no folder's time.
  const rules: Snapshot["rules"] = [];
  for (const path of walked.folders) {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats?.isDirectory() || racy(stats.mtimeMs, started)) return undefined;
    folders.push([path, stats.mtimeMs]);
    for (const name of noIgnore ? [] : IGNORE_FILES) {
      const file = join(path, name);
      const state = ruleState(file);
      if (Array.isArray(state) && racy(state[1], started)) return undefined;
      if (state !== null) rules.push([file, state]);
    }
  }
  const files: RememberedFile[] = [];
  for (const file of walked.files) {
    const path = file.realPath ?? file.absolute;
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats?.isFile() || racy(stats.mtimeMs, started)) return undefined;
    const document = documents.get(file.displayPath);
    if (document === undefined) {
      // Every file walked is a document or skipped (not twice, which only links make).
      if (!skippedPaths.has(file.displayPath)) return undefined;
      files.push([path, file.displayPath, stats.size, stats.mtimeMs, null]);
      continue;
    }
    const { format, reader, file_size: size, last_modified_at: lastModifiedAt } = document.metadata;
    // An image is listed whole (not made again from its metadata); a file whose time moved since it was examined
    // is not the one listed.
    if (
      format === "image" ||
      typeof format !== "string" ||
      typeof reader !== "string" ||
      typeof lastModifiedAt !== "string" ||
      size !== stats.size ||
      lastModifiedAt !== stats.mtime.toISOString()
    )
      return undefined;
    files.push([path, file.displayPath, stats.size, stats.mtimeMs, [format, reader, lastModifiedAt]]);
  }
  // Listed in the documents' order, which the store keeps.
  const order = new Map(listing.documents.map((document, position) => [document.id, position]));
  files.sort((left, right) => (order.get(left[1]) ?? -1) - (order.get(right[1]) ?? -1));
  if (files.filter((file) => file[4] !== null).length !== documents.size) return undefined;
  return {
    format: FORMAT,
    key,
    names,
    namesFrom,
    ...(sourcesVersion === undefined ? {} : { sourcesVersion }),
    folders,
    rules: [...(noIgnore ? [] : aboveRoots(roots)), ...rules],
    files,
    skipped,
    formats,
  };
}

/** What the walk's rules looked at above each root folder: `.git` markers, and ignore files inside a repository. */
function aboveRoots(roots: readonly string[]): Snapshot["rules"] {
  const above: Snapshot["rules"] = [];
  for (const root of roots) {
    // As the walk looks above a root: from its real path.
    const { folders, inRepository } = foldersAbove(realRoot(root));
    for (const folder of folders) {
      const marker = join(folder, ".git");
      above.push([marker, ruleState(marker)]);
      for (const name of inRepository ? IGNORE_FILES : []) {
        const file = join(folder, name);
        above.push([file, ruleState(file)]);
      }
    }
  }
  return above;
}

function realRoot(root: string): string {
  return realPathOf(root) ?? root;
}

export function realRoots(roots: readonly string[]): string[] {
  return roots.flatMap((root) => realPathOf(root) ?? []);
}

export function realPathOf(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function ruleState(path: string): RuleState {
  // `.git` may be a file (a worktree) or a folder whose time moves with every git command: only its presence counts.
  if (path.endsWith(".git")) return statSync(path, { throwIfNoEntry: false }) ? "present" : null;
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats ? [stats.size, stats.mtimeMs] : null;
}

export function sameRule(path: string, state: RuleState): boolean {
  const now = ruleState(path);
  if (now === null || state === null || now === "present" || state === "present") return now === state;
  return now[0] === state[0] && now[1] === state[1];
}

export function racy(modifiedMs: number, started: { wallMs: number }): boolean {
  return modifiedMs > started.wallMs - RACY_MS && modifiedMs < started.wallMs + AHEAD_MS;
}

/**
 * The last file read, by its path, inode, size and time: an ask that finds the store's rows moved (after an edit)
 * checks the same file twice, and a 6,000-file one takes ~10 ms to parse.
 */
let lastRead:
  | { path: string; ino: number; size: number; modifiedMs: number; snapshot: Snapshot | undefined }
  | undefined;

export function readSnapshot(folder: string, key: string): Snapshot | undefined {
  const path = join(folder, LISTING_SNAPSHOT_FILE);
  let snapshot: Snapshot | undefined;
  try {
    const stats = statSync(path);
    // Written by rename (a new inode each time), so a file written again is never taken for the one read.
    if (
      lastRead?.path === path &&
      lastRead.ino === stats.ino &&
      lastRead.size === stats.size &&
      lastRead.modifiedMs === stats.mtimeMs
    )
      snapshot = lastRead.snapshot;
    else {
      const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
      // Written by this module, but a file in a folder others can write: anything unlike it is not used.
      snapshot = isSnapshot(parsed) ? parsed : undefined;
      lastRead = { path, ino: stats.ino, size: stats.size, modifiedMs: stats.mtimeMs, snapshot };
    }
  } catch {
    return undefined;
  }
  return snapshot?.key === key ? snapshot : undefined;
}

function isSnapshot(value: unknown): value is Snapshot {
  if (typeof value !== "object" || value === null) return false;
  const snapshot = value as Partial<Snapshot>;
  return (
    snapshot.format === FORMAT &&
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
    Array.isArray(snapshot.rules) &&
    snapshot.rules.every((entry) => Array.isArray(entry) && typeof entry[0] === "string") &&
    Array.isArray(snapshot.files) &&
    everyRememberedFile(snapshot.files) &&
    Array.isArray(snapshot.skipped) &&
    typeof snapshot.formats === "object" &&
    snapshot.formats !== null
  );
}

/**
 * Whether every entry is a {@link RememberedFile}. One loop of indexed reads: at 6,220 files, `every` with a
 * destructuring check (the iterator protocol, in code run once a process) took 6–9 ms of an ask, this ~1.5 ms.
 */
function everyRememberedFile(files: readonly unknown[]): boolean {
  for (let index = 0; index < files.length; index++) {
    const entry = files[index];
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
    if (
      document !== null &&
      (!Array.isArray(document) ||
        document.length !== 3 ||
        typeof document[0] !== "string" ||
        typeof document[1] !== "string" ||
        typeof document[2] !== "string")
    )
      return false;
  }
  return true;
}

export function writeSnapshot(folder: string, snapshot: Snapshot): void {
  const path = join(folder, LISTING_SNAPSHOT_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, JSON.stringify(snapshot));
    renameSync(temporary, path);
  } catch {
    // Only a faster next check is lost.
    rmSync(temporary, { force: true });
  }
}
