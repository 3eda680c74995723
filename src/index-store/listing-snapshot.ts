// A folder's listing remembered beside its index, so an ask on a folder whose folders and files all keep their
// modification times lists nothing again: one `lstat` per folder and file, against a walk, the rules of every folder
// and a document made per file (at 6,220 files, ~95 ms of a 0.4 s ask). Files whose times changed are listed again
// one by one; anything else (a file added, removed or renamed: its folder's time changes) lists the folder in full.
import { lstatSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { READERS_VERSION } from "../reader/formats/registry.js";
import type { DocumentListing, SkippedPath } from "../reader/index.js";
import { isInside } from "../reader/inside-roots.js";
import { listedFileStub } from "../reader/read-file.js";
import { foldersAbove, IGNORE_FILES } from "../reader/walk-rules.js";
import type { TextNode } from "../schema/text-node.js";
import type { StoredSource } from "../store/index-store.js";

/** The file beside a cache folder's index. */
export const LISTING_SNAPSHOT_FILE = "listing.json";

/** The layout of {@link LISTING_SNAPSHOT_FILE}; another one is not read. */
const FORMAT = 1;

/** Beyond this many files with new times (a checkout, a copy), the folder is listed again in full. */
const MAX_RELISTED = 64;

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
type RememberedDocument = [format: string, reader: string, lastModifiedAt: string];

/** A file: where its `lstat` is taken, its id, its size and time then (-1: look again), and whether it is a document. */
type RememberedFile = [
  path: string,
  id: string,
  size: number,
  modifiedMs: number,
  document: RememberedDocument | null,
];

/** What a path the walk's rules look at held: absent (null), present (a `.git`), or a file's size and time. */
type RuleState = null | "present" | [size: number, modifiedMs: number];

interface Snapshot {
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

/** A {@link DocumentListing} made from a remembered one, that can remember what it listed again. */
export interface SnapshotListing extends DocumentListing {
  /** Files listed again (their times changed since the listing was remembered). */
  relisted: number;
  /** Remembers this listing, the files listed again with their new times (when the index holds them as they are). */
  remember(): void;
}

/**
 * The key a listing is remembered under: the roots, their names, the walk's rules and the readers' version. A
 * listing made with anything else is not used.
 */
export function listingKey(parts: Record<string, unknown>): string {
  return JSON.stringify({ ...parts, readers: READERS_VERSION });
}

/** Lists files by their paths (each named by its id): `listDocuments` of those files, with the folder's options. */
export type ListFiles = (paths: string[], rootNames: Record<string, string>) => Promise<DocumentListing>;

/** Where a remembered listing is checked: its roots (as given), and when the run started (wall clock). */
export interface SnapshotCheck {
  roots: readonly string[];
  started: { wallMs: number };
}

/**
 * The folder's listing as remembered in `folder`, checked: undefined (list in full) when there is none under `key`
 * for these `names`, when a folder walked or a rule file changed, when the store's files are not the ones it lists,
 * or when more than a few files changed. Otherwise a listing whose files are the remembered ones, those with new
 * times listed again (by their paths, named by their ids).
 */
export async function listFromSnapshot(
  folder: string,
  key: string,
  stored: readonly StoredSource[],
  listFiles: ListFiles,
  {
    roots,
    started,
    names,
    sourcesVersion,
  }: SnapshotCheck & { names: Readonly<Record<string, string>>; sourcesVersion: number | undefined },
): Promise<SnapshotListing | undefined> {
  const checked = checkedSnapshot(folder, key, roots, listFiles);
  if (!checked || JSON.stringify(checked.snapshot.names) !== JSON.stringify(names)) return undefined;
  const { snapshot, list } = checked;
  // The store's rows must be the remembered documents, in order; one with another size, time or reader (written
  // since by another run) is listed again.
  const documents = snapshot.files.filter((file) => file[4] !== null);
  if (documents.length === 0 || documents.length !== stored.length) return undefined;
  const storedAsRemembered = new Set<RememberedFile>();
  for (const [index, file] of documents.entries()) {
    const source = stored[index] as StoredSource;
    const [, reader, lastModifiedAt] = file[4] as RememberedDocument;
    if (source.id !== file[1]) return undefined;
    if (source.size === file[2] && source.lastModifiedAt === lastModifiedAt && source.reader === reader)
      storedAsRemembered.add(file);
  }
  const changed = filesWithNewTimes(snapshot, storedAsRemembered);
  if (!changed) return undefined;
  const again =
    changed.length === 0
      ? undefined
      : await list(
          changed.map((file) => file[0]),
          Object.fromEntries(changed.map((file) => [file[0], file[1]])),
        );
  if (changed.length > 0 && again === undefined) return undefined;
  return snapshotListing(folder, { ...snapshot, sourcesVersion }, changed, again, list, started);
}

/**
 * The remembered listing when nothing it names changed and the store's rows are the ones it was remembered with (the
 * same `sourcesVersion`, so they need not be read): the documents' ids, the folder their names are from, and the
 * listing (made from what was remembered). Undefined otherwise: then the store's rows are read and compared
 * ({@link listFromSnapshot}).
 */
export function unchangedFromSnapshot(
  folder: string,
  key: string,
  sourcesVersion: number,
  listFiles: ListFiles,
  { roots, started }: SnapshotCheck,
): { listing: SnapshotListing; ids: string[]; namesFrom: string } | undefined {
  const checked = checkedSnapshot(folder, key, roots, listFiles);
  if (!checked || checked.snapshot.sourcesVersion !== sourcesVersion) return undefined;
  const { snapshot, list } = checked;
  const ids: string[] = [];
  for (const file of snapshot.files) if (file[4] !== null) ids.push(file[1]);
  if (ids.length === 0 || filesWithNewTimes(snapshot, undefined)?.length !== 0) return undefined;
  return {
    listing: snapshotListing(folder, snapshot, [], undefined, list, started),
    ids,
    namesFrom: snapshot.namesFrom,
  };
}

/**
 * The remembered listing under `key` when every folder it walked and every rule file keeps its time, with the
 * `list` that lists files again.
 */
function checkedSnapshot(
  folder: string,
  key: string,
  roots: readonly string[],
  listFiles: ListFiles,
): { snapshot: Snapshot; list: SafeListFiles } | undefined {
  const snapshot = readSnapshot(folder, key);
  if (!snapshot) return undefined;
  for (const [path, modifiedMs] of snapshot.folders) {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats?.isDirectory() || stats.mtimeMs !== modifiedMs) return undefined;
  }
  for (const [path, state] of snapshot.rules) if (!sameRule(path, state)) return undefined;
  // The file is untrusted input (a cache folder others may write): a file it names is listed again (read) only by
  // its real path, inside the roots; else the folder is listed in full. (Its other paths are only looked at.)
  const real = realRoots(roots);
  const insideRoots = (path: string) => real.some((root) => isInside(path, root));
  const list: SafeListFiles = async (paths, rootNames) => {
    for (const path of paths) {
      const resolved = realPathOf(path);
      if (resolved !== path || !insideRoots(resolved)) return undefined;
    }
    return listFiles(paths, rootNames);
  };
  return { snapshot, list };
}

/** {@link ListFiles}, undefined when a path is not a real path inside the roots. */
type SafeListFiles = (
  paths: string[],
  rootNames: Record<string, string>,
) => Promise<DocumentListing | undefined>;

/**
 * The remembered documents whose size or time changed, or whose store row is not as remembered (not in
 * `storedAsRemembered`, when given); undefined (list the folder in full) when a file is gone or no longer a file,
 * when a file skipped before changed (it may read differently now, as a folder's listing decides), or when more
 * than {@link MAX_RELISTED} changed.
 */
function filesWithNewTimes(
  snapshot: Snapshot,
  storedAsRemembered: ReadonlySet<RememberedFile> | undefined,
): RememberedFile[] | undefined {
  const changed: RememberedFile[] = [];
  for (const file of snapshot.files) {
    const stats = lstatSync(file[0], { throwIfNoEntry: false });
    if (!stats?.isFile()) return undefined;
    const same = stats.size === file[2] && stats.mtimeMs === file[3];
    if (same && (file[4] === null || !storedAsRemembered || storedAsRemembered.has(file))) continue;
    if (file[4] === null) return undefined;
    changed.push(file);
    if (changed.length > MAX_RELISTED) return undefined;
  }
  return changed;
}

function snapshotListing(
  folder: string,
  snapshot: Snapshot,
  changed: readonly RememberedFile[],
  again: DocumentListing | undefined,
  list: SafeListFiles,
  started: { wallMs: number },
): SnapshotListing {
  const listedAgain = new Map(again?.documents.map((document) => [document.id, document]));
  const changedIds = new Set(changed.map((file) => file[1]));
  const remembered = new Map<TextNode, RememberedFile>();
  // Made when first asked for: an ask that lists no file again queries the store without them.
  let documents: TextNode[] | undefined;
  const listed = (): TextNode[] => {
    if (documents) return documents;
    documents = [];
    for (const file of snapshot.files) {
      if (file[4] === null) continue;
      if (changedIds.has(file[1])) {
        const document = listedAgain.get(file[1]);
        if (document) documents.push(document);
        continue;
      }
      const [format, reader, lastModifiedAt] = file[4];
      const stub = listedFileStub(file[1], { size: file[2], lastModifiedAt, format, reader });
      documents.push(stub);
      remembered.set(stub, file);
    }
    return documents;
  };
  // The formats of the documents not listed again, as the remembered listing counted them.
  const formats: Record<string, number> = { ...snapshot.formats };
  for (const file of changed) {
    const format = (file[4] as RememberedDocument)[0];
    formats[format] = (formats[format] ?? 0) - 1;
  }
  // A remembered document read after all (the store changed since the check): listed on its own then.
  const alone = new Map<TextNode, Promise<DocumentListing | undefined>>();
  const single = (document: TextNode) => {
    const file = remembered.get(document) as RememberedFile;
    let listing = alone.get(document);
    if (!listing) {
      listing = list([file[0]], { [file[0]]: file[1] });
      alone.set(document, listing);
    }
    return listing.then((listed) => ({ listed, document: listed?.documents[0] }));
  };
  const owner = (document: TextNode) => (remembered.has(document) ? undefined : again);
  return {
    get documents() {
      return listed();
    },
    relisted: changed.length,
    report: () => {
      const more = again?.report();
      const counts = { ...formats };
      for (const [format, count] of Object.entries(more?.formats ?? {}))
        counts[format] = (counts[format] ?? 0) + count;
      return {
        skipped: [...snapshot.skipped, ...(more?.skipped ?? [])].sort((left, right) =>
          compare(left.path, right.path),
        ),
        formats: Object.fromEntries(
          Object.entries(counts)
            .filter(([, count]) => count > 0)
            .sort(([left], [right]) => compare(left, right)),
        ),
      };
    },
    read: async (document, options = {}) => {
      const listing = owner(document);
      if (listing) return listing.read(document, options);
      if (!options.evenIfKnown) return document;
      const { listed, document: own } = await single(document);
      return own && listed?.read(own, options);
    },
    readUnlessBytes: async (document, bytesHash, options) => {
      const listing = owner(document);
      if (listing) return listing.readUnlessBytes(document, bytesHash, options);
      const { listed, document: own } = await single(document);
      return own && listed?.readUnlessBytes(own, bytesHash, options);
    },
    whySkipped: (document) => owner(document)?.whySkipped(document),
    walked: { folders: snapshot.folders.map(([path]) => path), links: 0, files: [] },
    remember: () => {
      if (changed.length === 0) return;
      const files = snapshot.files.map((file) =>
        changedIds.has(file[1]) ? relisted(file, listedAgain.get(file[1]), started) : file,
      );
      const now = { ...snapshot, files };
      writeSnapshot(folder, now);
    },
  };
}

/**
 * A remembered file as it was listed again (`document`, when it is still a document): its size, times and reader
 * now, its modification time -1 (look again next time) when the file moved since or its time is too recent to trust.
 */
function relisted(
  file: RememberedFile,
  document: TextNode | undefined,
  started: { wallMs: number },
): RememberedFile {
  const { format, reader, file_size: size, last_modified_at: lastModifiedAt } = document?.metadata ?? {};
  const stats = lstatSync(file[0], { throwIfNoEntry: false });
  if (
    !stats ||
    typeof format !== "string" ||
    typeof reader !== "string" ||
    typeof lastModifiedAt !== "string" ||
    size !== stats.size ||
    lastModifiedAt !== stats.mtime.toISOString() ||
    racy(stats.mtimeMs, started)
  )
    return [file[0], file[1], -1, -1, file[4]];
  return [file[0], file[1], stats.size, stats.mtimeMs, [format, reader, lastModifiedAt]];
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

function realRoots(roots: readonly string[]): string[] {
  return roots.flatMap((root) => realPathOf(root) ?? []);
}

function realPathOf(path: string): string | undefined {
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

function sameRule(path: string, state: RuleState): boolean {
  const now = ruleState(path);
  if (now === null || state === null || now === "present" || state === "present") return now === state;
  return now[0] === state[0] && now[1] === state[1];
}

function racy(modifiedMs: number, started: { wallMs: number }): boolean {
  return modifiedMs > started.wallMs - RACY_MS && modifiedMs < started.wallMs + AHEAD_MS;
}

/**
 * The last file read, by its path, inode, size and time: an ask that finds the store's rows moved (after an edit)
 * checks the same file twice, and a 6,000-file one takes ~10 ms to parse.
 */
let lastRead:
  | { path: string; ino: number; size: number; modifiedMs: number; snapshot: Snapshot | undefined }
  | undefined;

function readSnapshot(folder: string, key: string): Snapshot | undefined {
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
    snapshot.files.every(isRememberedFile) &&
    Array.isArray(snapshot.skipped) &&
    typeof snapshot.formats === "object" &&
    snapshot.formats !== null
  );
}

function isRememberedFile(entry: unknown): entry is RememberedFile {
  if (!Array.isArray(entry) || entry.length !== 5) return false;
  const [path, id, size, modifiedMs, document] = entry;
  return (
    typeof path === "string" &&
    typeof id === "string" &&
    typeof size === "number" &&
    typeof modifiedMs === "number" &&
    (document === null ||
      (Array.isArray(document) &&
        document.length === 3 &&
        document.every((part) => typeof part === "string")))
  );
}

function writeSnapshot(folder: string, snapshot: Snapshot): void {
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

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
