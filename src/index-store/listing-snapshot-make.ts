// How a folder's listing is made into the snapshot remembered beside its index: only when nothing in it could have
// changed unseen (no image, no folder or file changed during the listing or too close to it to tell; a link's
// target is remembered by its real path and its own time), with
// the state of the rule files the walk read and of the markers above the roots, and the checks of those states and
// times that listing-snapshot.ts runs before it uses a snapshot again. The files it is kept in are
// listing-snapshot-file.ts's.
import { lstatSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { READERS_VERSION } from "../reader/formats/registry.js";
import type { DocumentListing } from "../reader/index.js";
import { foldersAbove, IGNORE_FILES } from "../reader/walk-rules.js";
import {
  forgetListing,
  type RememberedFile,
  type RuleState,
  type Snapshot,
  writeSnapshot,
} from "./listing-snapshot-file.js";

/**
 * A folder or file whose time lies this close (ms) before the listing's start, or after it, may have changed again
 * within the same tick of the file system's clock after it was looked at: such a listing is not remembered (a file
 * is remembered as changed, so it is listed again next time). A change takes the time of its moment, so a time
 * further ahead than {@link AHEAD_MS} (a clock ahead elsewhere, `touch -d`, an archive's) is not one a change made
 * now can give again: such a file is remembered.
 */
const RACY_MS = 2_000;
const AHEAD_MS = 60_000;

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
 * unchanged ask or index run); nothing is remembered (and an older one is removed) when the listing met an image,
 * or when a folder or file walked changed during it or too close to it to tell. Symbolic links are remembered with
 * the real paths they led to (Debian's man pages and documentation folders hold hundreds: an alternative, a page
 * shared between two commands), and a file reached through one by its target's real path and times.
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
    // A file reached through a link is looked at where the link led: its target's time is the one that changes.
    const path = file.realPath ?? file.linkTarget ?? file.absolute;
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
    key,
    names,
    namesFrom,
    ...(sourcesVersion === undefined ? {} : { sourcesVersion }),
    folders,
    links: walked.links.map(({ absolute, real }) => [absolute, real]),
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
