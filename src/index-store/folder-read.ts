// Listing a folder for its index: the walk, the stored index's fingerprints (so unchanged files are not read), and
// whether the index holds every file unchanged. Building on the listing is folder-index.ts's.
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { builtInReadersFor } from "../reader/formats/registry.js";
import { listDocuments } from "../reader/index.js";
import type { SkipRead } from "../reader/read-file.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexStore, StoredSource } from "../store/index-store.js";
import { SQLITE_INDEX_FILE } from "../store/open-sqlite-store.js";
import { sleep } from "../util/abort.js";
import type { BuildReadDocument, IndexBuildStats } from "./build-index-options.js";
import { liveBuild, type TakenBuildLease, takeBuildLease } from "./build-lease.js";
import { defaultCacheDir, sharedStoreMemoryDir, writableCacheDir } from "./folder-cache-dir.js";
import { listedFolderStats } from "./folder-index-stats.js";
import { type FolderIndexOptions, type FolderRead, SILENT_PROGRESS } from "./folder-read-options.js";
import {
  buildSettings,
  givenRoots,
  listedDocumentReader,
  noDocuments,
  readIndexedFolder,
  storedStore,
  versionAfterOwnWrites,
} from "./indexed-folder-read.js";
import { listFromSnapshot } from "./listing-snapshot.js";
import { rememberListing } from "./listing-snapshot-make.js";
import { LocalFingerprints } from "./local-fingerprints.js";
import { folderListingKey, readRememberedFolder } from "./remembered-folder-read.js";
import { SkippedReadsMemory } from "./skipped-reads.js";
import { storeLabel } from "./store-location.js";
import { namesAsStored } from "./stored-names.js";
import { storedBuildStats, storedFilesOf, unchangedBuildStats } from "./stored-sources.js";

/**
 * Picks the cache folder and lists the documents to index (walked and examined, none read yet); the build reads
 * each when it reaches it, except the files the stored index holds with the same size, modification time and reader.
 * @throws RagsynthError `document_read` when there is nothing to read
 */
export async function readFolderDocuments(options: FolderIndexOptions): Promise<FolderRead> {
  const { paths, cacheDir, cwd, progress = SILENT_PROGRESS } = options;
  const started = performance.now();
  if (options.refresh === false)
    return readIndexedFolder(options, started, undefined, { reason: "no-refresh" });
  progress.start("Reading documents");
  const defaultFolder =
    options.store === undefined && cacheDir === undefined ? await defaultCacheDir(paths, cwd) : undefined;
  const hadDefaultFolder = defaultFolder !== undefined && existsSync(defaultFolder);
  const folder =
    options.store ??
    (defaultFolder !== undefined
      ? await writableCacheDir(defaultFolder, options)
      : resolve(cwd, cacheDir as string));
  // What this run finds in a cache folder, so a run that indexes nothing leaves no folder or index of its own.
  const madeFolder =
    options.store === undefined && (folder === defaultFolder ? !hadDefaultFolder : !existsSync(folder));
  const hadIndex = options.store !== undefined || existsSync(join(folder, SQLITE_INDEX_FILE));
  // A build that finds another live one of the same folder waits for it, then builds on what it wrote (the files it
  // did not reach, edits since), rather than reading and writing the same files beside it. It takes the lease
  // before it lists the folder, so of two started at once one builds and the other waits.
  const waited =
    options.whileAnotherBuilds === "wait" && options.store === undefined && !options.rebuild
      ? await leaseAfterOtherBuilds(options, folder)
      : undefined;
  try {
    // After waiting, the folder and what is in it are the other build's.
    const afterOther = waited?.waitedMs !== undefined;
    const read = await listAndOpen(options, folder, {
      madeFolder: madeFolder && !afterOther,
      hadIndex: afterOther ? existsSync(join(folder, SQLITE_INDEX_FILE)) : hadIndex,
      started,
    });
    if (waited === undefined) return read;
    const { stats } = read;
    return {
      ...read,
      lease: waited.lease,
      ...(waited.waitedMs === undefined
        ? {}
        : { stats: (build: IndexBuildStats) => ({ ...stats(build), waitedMs: waited.waitedMs }) }),
    };
  } catch (error) {
    waited?.lease.release();
    throw error;
  }
}

async function listAndOpen(
  options: FolderIndexOptions,
  folder: string,
  { madeFolder, hadIndex, started }: { madeFolder: boolean; hadIndex: boolean; started: number },
): Promise<FolderRead> {
  // An asker that finds another process building this folder's index answers from what it has committed, rather
  // than build the same files beside it (minutes, for a large folder's first index).
  if (
    options.whileAnotherBuilds === "answer-as-is" &&
    options.store === undefined &&
    hadIndex &&
    !options.rebuild
  ) {
    const asIs = await readWhileBuilt(options, folder, started);
    if (asIs) return asIs;
  }
  // Files the stored index holds with the same size and modification time are listed, not read.
  const opened = options.rebuild ? undefined : await storedStore(folder, options);
  const store = opened === "other-version" ? undefined : opened;
  let read: Omit<FolderRead, "openStore">;
  try {
    // A cache folder's listing remembered with the store's rows as they still are, nothing in it changed: neither
    // the folder nor the rows are read.
    const remembered =
      store && options.store === undefined
        ? await readRememberedFolder(options, folder, store, started)
        : undefined;
    if (remembered) return remembered;
    const files = store ? await storedFilesOf(store) : undefined;
    const stored = opened === "other-version" ? opened : files?.sources;
    read = await listFolder(options, {
      folder,
      stored,
      sourcesVersion: files?.sourcesVersion,
      store,
      madeFolder,
      hadIndex,
      started,
    });
  } catch (error) {
    await store?.close();
    throw error;
  }
  // An unchanged index is queried through the store just read; anything else is built on it.
  return { ...read, openStore: store };
}

/** How often a build waiting for another one looks at its lease. */
const WAIT_POLL_MS = 250;

/**
 * Takes the folder's build lease, first waiting for another live process that holds it, having said once whom it
 * waits for; with how long it waited (undefined when it did not). That lease ends when its build ends or fails, or
 * goes stale a minute after its process stops renewing it.
 * @throws an `AbortError` when the signal aborts while waiting (Ctrl-C)
 */
async function leaseAfterOtherBuilds(
  options: FolderIndexOptions,
  folder: string,
): Promise<{ lease: TakenBuildLease; waitedMs: number | undefined }> {
  let attempt = takeBuildLease(folder);
  if ("release" in attempt) return { lease: attempt, waitedMs: undefined };
  const started = performance.now();
  const { heldBy } = attempt;
  options.onNotice?.({
    kind: "waiting",
    message: `another ragsynth (${builderName(heldBy)}, since ${heldBy.startedAt}) is building the index in ${storeLabel(folder)}: waiting for it to finish, then indexing what it left (Ctrl-C stops waiting).`,
  });
  while (!("release" in attempt)) {
    await sleep(WAIT_POLL_MS, options.signal);
    // Looked at first (a stat and a small read): trying to take it writes a file, four times a second while waiting.
    if (!liveBuild(folder)) attempt = takeBuildLease(folder);
  }
  return { lease: attempt, waitedMs: performance.now() - started };
}

function builderName(builder: { pid: number; host: string }): string {
  return builder.host === hostname() ? `process ${builder.pid}` : `process ${builder.pid} on ${builder.host}`;
}

/**
 * The index as it is, with a notice, when another live process holds the folder's build lease; undefined when none
 * does, or when what it has written so far is not an index of these settings (another chunk size: then this run
 * builds its own, as before).
 */
async function readWhileBuilt(
  options: FolderIndexOptions,
  folder: string,
  started: number,
): Promise<FolderRead | undefined> {
  const builder = liveBuild(folder);
  if (!builder) return undefined;
  let read: FolderRead;
  try {
    const { pid, host, startedAt } = builder;
    read = await readIndexedFolder(options, started, folder, {
      reason: "another-build",
      builder: { pid, host, startedAt },
    });
  } catch (error) {
    if (RagsynthError.isInstance(error) && error.code === "index_load") return undefined;
    throw error;
  }
  options.onNotice?.({
    kind: "building",
    message: `another ragsynth (${builderName(builder)}, since ${builder.startedAt}) is building the index in ${storeLabel(folder)}: this answer comes from what it has written so far, without the files it has not reached yet or edits since. Ask again when it is done.`,
  });
  return read;
}

/** {@link readFolderDocuments} once the store's fingerprints are read: the listing and what building on it needs. */
async function listFolder(
  options: FolderIndexOptions,
  {
    folder,
    stored,
    sourcesVersion,
    store,
    madeFolder,
    hadIndex,
    started,
  }: {
    folder: string;
    stored: StoredSource[] | undefined | "other-version";
    /** The store's `sourcesVersion`, read with `stored`. */
    sourcesVersion: number | undefined;
    /** The store `stored` was read from, held open for the build (it writes through this one). */
    store: IndexStore | undefined;
    madeFolder: boolean;
    hadIndex: boolean;
    started: number;
  },
): Promise<Omit<FolderRead, "openStore">> {
  const { paths, walk, embedModel, cwd, signal } = options;
  const rebuild = options.rebuild || stored === "other-version";
  const known = new Map(
    (stored === "other-version" ? undefined : stored)?.map((source) => [source.id, source]),
  );
  // Sources show relative to the working folder (`examples/docs/modes.md`), whichever way the path was spelled:
  // the index knows files by that name, so `docs`, `./docs` and its absolute path find the same stored files. Run
  // from another folder (`ask .` inside docs/), they keep the names the store holds them by.
  const roots = givenRoots(paths, cwd);
  // Rebuilt (or another format's), `known` is empty and the working folder's names stand.
  const named = namesAsStored(roots, known, cwd);
  // Files earlier runs read and skipped (binary, not UTF-8…): reported again unread while they keep their size, time
  // and reader; the skips of this run are kept for the next. Kept beside a cache folder's index; for a PostgreSQL
  // store, which other machines share, on this machine, by the folder the names are from (another working folder
  // that names the files as the store does finds what this one learned).
  const memoryDir =
    options.store === undefined
      ? folder
      : sharedStoreMemoryDir(options.userCacheDir, storeLabel(folder), named.from);
  const skippedReads = new SkippedReadsMemory(memoryDir, { forget: rebuild });
  // A store's rows hold the times of the machine that wrote them: on a shared one, this machine's own times of the
  // files whose bytes it found to be the rows'.
  const localFingerprints = new LocalFingerprints(options.store === undefined ? undefined : memoryDir, {
    forget: rebuild,
  });
  const knownLocally = new Set<string>();
  const { readAs, ...walkOptions } = walk;
  const listingOptions = (rootNames: Record<string, string>) => ({
    ...walkOptions,
    readers: builtInReadersFor(readAs),
    rootNames,
    signal,
    // Read again when the reader for its ending changed (a new ragsynth, another format), not only the file.
    skipRead: ({ path, size, lastModifiedAt, reader }: Parameters<SkipRead>[0]) => {
      const source = known.get(path);
      if (source?.size === size && source.lastModifiedAt === lastModifiedAt && source.reader === reader)
        return true;
      if (localFingerprints.knows({ path, size, lastModifiedAt, reader }, source)) {
        knownLocally.add(path);
        return true;
      }
      return skippedReads.answer({ path, size, lastModifiedAt, reader }) ?? false;
    },
  });
  const locations = roots.map((root) => root.location);
  // A cache folder's index remembers the listing that found it up to date: when every folder walked and every file
  // keeps its time, nothing is walked or examined again (files with new times are listed one by one).
  const key =
    options.store === undefined && !rebuild && Array.isArray(stored) ? folderListingKey(options) : undefined;
  const startedAt = { wallMs: performance.timeOrigin + started };
  const remembered =
    key === undefined
      ? undefined
      : await listFromSnapshot(
          folder,
          key,
          stored as StoredSource[],
          (files, names) => listDocuments(files, listingOptions(names)),
          { roots: locations, started: startedAt, names: named.names, sourcesVersion },
        );
  const listing = remembered ?? (await listDocuments(locations, listingOptions(named.names)));
  // Our own cache folder is no news.
  const report = () => {
    const { skipped, formats } = listing.report();
    return { skipped: skipped.filter((entry) => resolve(named.from, entry.path) !== folder), formats };
  };
  // A remembered listing that listed no file again is the store's files as they are: no document is made for it
  // unless a build asks (the store changed under the ask).
  const asStored = remembered?.relisted === 0 && Array.isArray(stored) ? stored : undefined;
  const documents = asStored ? [] : listing.documents;
  if (!asStored && documents.length === 0) throw noDocuments(paths, report().skipped);
  // This machine's copy of a file whose bytes are the shared store's row's is listed with the row's time (its size
  // is the same, as its bytes are): the index finds it unchanged, as the machine that wrote the row does.
  for (const document of knownLocally.size > 0 ? documents : []) {
    const stored = knownLocally.has(document.id) ? known.get(document.id) : undefined;
    if (stored?.lastModifiedAt !== undefined) document.metadata.last_modified_at = stored.lastModifiedAt;
  }
  const renamed = Array.isArray(stored) && !rebuild ? renamedFiles(known, documents) : undefined;
  if (renamed) {
    options.onNotice?.({
      kind: "renamed",
      message: `the cached index in ${storeLabel(folder)} names these files from another working folder (${renamed.stored} is ${renamed.listed} from here), so they are read again: the index names files by their path from where ragsynth runs. Run it from one folder to keep its index.`,
    });
  }
  const unchanged = asStored
    ? storedBuildStats(asStored, embedModel)
    : !rebuild && Array.isArray(stored)
      ? unchangedBuildStats(documents, stored, embedModel)
      : undefined;
  const unreadable = new Set<string>();
  // Only documents the store does not hold unchanged are read; one the store holds under another size or time is
  // first compared by its bytes.
  const readListed = listedDocumentReader(listing, readAs);
  const readDocument: BuildReadDocument = async (document, options = {}) => {
    const read = await readListed(document, options);
    const { unlessBytesHash } = options;
    if (read === "same-bytes" && unlessBytesHash !== undefined)
      localFingerprints.note(document, unlessBytesHash);
    if (read === undefined) {
      unreadable.add(document.id);
      skippedReads.noteSkipped(document, listing.whySkipped(document));
    }
    return read;
  };
  const stats = (build: IndexBuildStats) =>
    listedFolderStats(build, {
      cacheDir: storeLabel(folder),
      files: (asStored ?? documents).length - unreadable.size,
      ...report(),
      remembered: remembered && { relisted: remembered.relisted },
      started,
    });
  return {
    folder,
    ...buildSettings(options),
    documents: () => listing.documents,
    readDocument,
    rebuild,
    unchanged,
    namesFrom: named.from,
    stats,
    nothingRead: () => noDocuments(paths, report().skipped),
    keepReadMemory: () => {
      // The listing is remembered with the rows' version read with them when the index held it unchanged, and when
      // the build wrote it, with their version after this run's writes when no other writer came between (the rows
      // are then the listing's documents, unless one could not be read).
      const version = unchanged
        ? sourcesVersion
        : unreadable.size === 0 && sourcesVersion !== undefined
          ? versionAfterOwnWrites(store, sourcesVersion)
          : undefined;
      const remember = unchanged !== undefined || version !== undefined;
      // A remembered listing touched only the files listed again: the memories of the rest stay as they are.
      if (remembered) {
        if (remember) remembered.remember(version);
        return;
      }
      skippedReads.save();
      localFingerprints.save();
      if (key !== undefined && remember)
        rememberListing(folder, key, listing, {
          roots: locations,
          noIgnore: walk.noIgnore,
          started: startedAt,
          names: named.names,
          namesFrom: named.from,
          sourcesVersion: version,
        });
    },
    forgetOwnIndex: async () => {
      if (madeFolder) await rm(folder, { recursive: true, force: true });
      else if (!hadIndex) {
        for (const suffix of ["", "-wal", "-shm"])
          await rm(join(folder, `${SQLITE_INDEX_FILE}${suffix}`), { force: true });
      }
    },
  };
}

/**
 * When none of `documents` is known to the store by its id but one of the first few is under another spelling of
 * its path (`docs/a.md` stored, `a.md` listed: ragsynth ran from another folder), that pair; else undefined.
 */
function renamedFiles(
  known: ReadonlyMap<string, StoredSource>,
  documents: readonly TextNode[],
): { stored: string; listed: string } | undefined {
  if (known.size === 0 || documents.some((document) => known.has(document.id))) return undefined;
  for (const document of documents.slice(0, 20)) {
    for (const id of known.keys()) {
      if (id.endsWith(`/${document.id}`) || document.id.endsWith(`/${id}`))
        return { stored: id, listed: document.id };
    }
  }
  return undefined;
}
