// A folder's listing remembered beside its index, so an ask on a folder whose folders and files all keep their
// modification times lists nothing again: one `lstat` per folder and file, against a walk, the rules of every folder
// and a document made per file (at 6,220 files, ~95 ms of a 0.4 s ask). Files whose times changed are listed again
// one by one; anything else (a file added, removed or renamed: its folder's time changes) lists the folder in full.
// The file itself (what it holds, writing and reading it) is listing-snapshot-file.ts's.
import { lstatSync } from "node:fs";
import type { DocumentListing } from "../reader/index.js";
import { isInside } from "../reader/inside-roots.js";
import { listedFileStub } from "../reader/read-file.js";
import type { TextNode } from "../schema/text-node.js";
import type { StoredSource } from "../store/index-store.js";
import {
  type RememberedDocument,
  type RememberedFile,
  readSnapshot,
  type Snapshot,
  writeSnapshot,
} from "./listing-snapshot-file.js";
import { racy, realPathOf, realRoots, type SnapshotCheck, sameRule } from "./listing-snapshot-make.js";

/** Beyond this many files with new times (a checkout, a copy), the folder is listed again in full. */
const MAX_RELISTED = 64;

/** A {@link DocumentListing} made from a remembered one, that can remember what it listed again. */
export interface SnapshotListing extends DocumentListing {
  /** Files listed again (their times changed since the listing was remembered). */
  relisted: number;
  /**
   * Remembers this listing, the files listed again with their new times (when the index holds them as they are), with
   * the rows' `sourcesVersion` when given (the index was written since the check, by this run alone).
   */
  remember(sourcesVersion?: number): void;
}

/** Lists files by their paths (each named by its id): `listDocuments` of those files, with the folder's options. */
export type ListFiles = (paths: string[], rootNames: Record<string, string>) => Promise<DocumentListing>;

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
  // Rows of the version remembered are the remembered ones: not compared again.
  const storedAsRemembered =
    sourcesVersion !== undefined && sourcesVersion === snapshot.sourcesVersion
      ? undefined
      : rowsAsRemembered(documents, stored);
  if (storedAsRemembered === "other") return undefined;
  const changed = filesWithNewTimes(snapshot, storedAsRemembered);
  if (!changed) return undefined;
  const again = await listAgain(list, changed);
  if (changed.length > 0 && again === undefined) return undefined;
  return snapshotListing(folder, { ...snapshot, sourcesVersion }, changed, again, list, started);
}

/**
 * The remembered documents whose store row (`stored`, in the same order) is as remembered; `"other"` when the rows
 * are of other documents.
 */
function rowsAsRemembered(
  documents: readonly RememberedFile[],
  stored: readonly StoredSource[],
): Set<RememberedFile> | "other" {
  const same = new Set<RememberedFile>();
  for (const [index, file] of documents.entries()) {
    const source = stored[index] as StoredSource;
    const [, reader, lastModifiedAt] = file[4] as RememberedDocument;
    if (source.id !== file[1]) return "other";
    if (source.size === file[2] && source.lastModifiedAt === lastModifiedAt && source.reader === reader)
      same.add(file);
  }
  return same;
}

/**
 * The remembered listing when the store's rows are the ones it was remembered with (the same `sourcesVersion`, so
 * they need not be read) and nothing it names changed but a few files' times: the documents' ids in order, the
 * folder their names are from, the listing (made from what was remembered), and the documents listed again (those
 * files, each still a document of the same name; empty when nothing changed). Undefined otherwise: then the store's
 * rows are read and compared ({@link listFromSnapshot}).
 */
export async function fromSnapshotAtVersion(
  folder: string,
  key: string,
  sourcesVersion: number,
  listFiles: ListFiles,
  { roots, started }: SnapshotCheck,
): Promise<{ listing: SnapshotListing; ids: string[]; namesFrom: string; changed: TextNode[] } | undefined> {
  // The version first (the file is parsed once per process): a store written since is not looked at further here.
  if (readSnapshot(folder, key)?.sourcesVersion !== sourcesVersion) return undefined;
  const checked = checkedSnapshot(folder, key, roots, listFiles);
  if (!checked) return undefined;
  const { snapshot, list } = checked;
  const ids: string[] = [];
  for (const file of snapshot.files) if (file[4] !== null) ids.push(file[1]);
  const changed = filesWithNewTimes(snapshot, undefined);
  if (ids.length === 0 || !changed) return undefined;
  const again = await listAgain(list, changed);
  const documents = again?.documents ?? [];
  // A file listed again that is no longer a document (passed over now) leaves the index: the folder is listed in full.
  const changedIds = new Set(changed.map((file) => file[1]));
  if (documents.length !== changed.length || documents.some((document) => !changedIds.has(document.id)))
    return undefined;
  return {
    listing: snapshotListing(folder, snapshot, changed, again, list, started),
    ids,
    namesFrom: snapshot.namesFrom,
    changed: documents,
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
  // A link that leads elsewhere now (re-pointed along its chain, or broken) may list another file or none.
  for (const [path, real] of snapshot.links) if ((realPathOf(path) ?? null) !== real) return undefined;
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

/** The `changed` files listed again by their paths, each named by its id; undefined when there are none. */
function listAgain(
  list: SafeListFiles,
  changed: readonly RememberedFile[],
): Promise<DocumentListing | undefined> {
  if (changed.length === 0) return Promise.resolve(undefined);
  return list(
    changed.map((file) => file[0]),
    Object.fromEntries(changed.map((file) => [file[0], file[1]])),
  );
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
    walked: {
      folders: snapshot.folders.map(([path]) => path),
      links: snapshot.links.map(([absolute, real]) => ({ absolute, real })),
      files: [],
    },
    remember: (sourcesVersion) => {
      if (changed.length === 0 && sourcesVersion === undefined) return;
      const files = snapshot.files.map((file) =>
        changedIds.has(file[1]) ? relisted(file, listedAgain.get(file[1]), started) : file,
      );
      writeSnapshot(folder, {
        ...snapshot,
        files,
        ...(sourcesVersion === undefined ? {} : { sourcesVersion }),
      });
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

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
