// Listing a folder for its index: the walk, the stored index's fingerprints (so unchanged files are not read), and
// whether the index holds every file unchanged. Building on the listing is folder-index.ts's.
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { builtInReadersFor } from "../reader/formats/registry.js";
import { listDocuments, type SkippedPath } from "../reader/index.js";
import type { ParseElsewhere } from "../reader/read-file.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexStore, StoredSource } from "../store/index-store.js";
import { SQLITE_INDEX_FILE } from "../store/open-sqlite-store.js";
import { displayPath } from "../util/display-path.js";
import type { BuildReadDocument, IndexBuildStats, NodeParser } from "./build-index-options.js";
import {
  defaultCacheDir,
  sharedStoreMemoryDir,
  writableCacheDir,
  writtenCacheDir,
} from "./folder-cache-dir.js";
import { countSkipped, type FolderIndexStats } from "./folder-index-stats.js";
import { LocalFingerprints } from "./local-fingerprints.js";
import { SkippedReadsMemory } from "./skipped-reads.js";
import { isOtherIndexVersion } from "./store-index.js";
import { storeLabel } from "./store-location.js";
import { namesAsStored } from "./stored-names.js";
import { openStoredFiles, storedBuildStats, unchangedBuildStats } from "./stored-sources.js";

/** How a folder is walked: globs, endings read as a built-in format, and what is read that is skipped by default. */

export interface FolderWalk {
  include: string[];
  exclude: string[];
  /** Endings mapped to built-in formats: `{ ".mdx": "markdown" }`. */
  readAs: Record<string, string>;
  noIgnore: boolean;
  hidden: boolean;
  followSymlinks: boolean;
}

/** The steps of opening, for a progress line; a terminal's progress display fits it. */
export interface IndexProgress {
  start(label: string, total?: number): void;
  update(done: number): void;
  clear(): void;
}

/** Options of {@link openFolderIndex} and {@link refreshFolderIndex}. */
export interface FolderIndexOptions {
  /** Files and folders to read (each must exist). */
  paths: readonly string[];
  walk: FolderWalk;
  /** Where the index is kept; default `.ragsynth/` beside the documents ({@link defaultCacheDir}). */
  cacheDir: string | undefined;
  /** A PostgreSQL URL (`postgres://…`) the index is kept in instead of a folder; `cacheDir` is then not used. */
  store?: string | undefined;
  embedModel: Embedder;
  /** How documents become chunks. @default new BlockSplitter() (1,024 tokens, 200 overlap) */
  splitter?: NodeParser | undefined;
  /** Worker threads that parse the files and split the documents (`FromDocumentsCachedOptions.threads`). @default by the cores */
  threads?: number | undefined;
  /** The embedder's name on the progress line (`hashing`, a model spec). */
  embedLabel: string;
  /** Build anew instead of on the stored index. */
  rebuild: boolean;
  /**
   * `false`: query the stored index as it was last built, without listing or reading a file (changes since are not
   * seen; `walk` is not used). It must be there, built with `embedModel` and `splitter`: `ragsynth index` builds it.
   * Not with `rebuild`. @default true
   */
  refresh?: boolean | undefined;
  /** Relative paths are resolved against it; sources are named relative to it. */
  cwd: string;
  /** Where an index goes when the default folder is read-only (`<userCacheDir>/<hash of the folder>`). */
  userCacheDir: string;
  signal: AbortSignal;
  progress?: IndexProgress | undefined;
  /** What the caller should tell its user: the index went to a fallback folder, or another format's is rebuilt. */
  onNotice?:
    | ((notice: { kind: "read-only" | "other-version" | "renamed"; message: string }) => void)
    | undefined;
}

/** The documents listed for an index, with what building it needs. */
export interface FolderRead {
  /** The cache folder, or the PostgreSQL URL (printed only through `storeLabel`). */
  folder: string;
  embedModel: Embedder;
  splitter: NodeParser | undefined;
  threads: number | undefined;
  embedLabel: string;
  /**
   * Every file to index, by its metadata only (empty text): `readDocument` reads one when the build reaches it, so
   * the texts of a group are held at a time, not the folder's. Those the stored index holds unchanged are never read.
   */
  documents: TextNode[];
  readDocument: BuildReadDocument;
  /** True when the stored index must not be built on (`rebuild`, or a cache of another index format). */
  rebuild: boolean;
  /**
   * What the build would report when the stored index holds every listed document unchanged (same files, order,
   * sizes, times and readers), found from the rows the listing read; `undefined` when there is something to do.
   */
  unchanged: IndexBuildStats | undefined;
  /**
   * The store the fingerprints were read from, left open (`undefined` when there was none to read, or `rebuild`):
   * an ask queries it without opening it again, and a build writes to it without opening it again and reading its
   * rows a second time. Whoever takes this FolderRead closes it (`buildFolderIndex` hands it to the index or the
   * build, `refreshFolderIndex` closes it when there is nothing to build).
   */
  openStore: IndexStore | undefined;
  /**
   * The folder the documents' relative `file_path`s are named from (relative links and images in them resolve
   * against it): the working folder, or the one the stored index named them from when it runs from another.
   */
  namesFrom: string;
  /** The counts of what was read and skipped (complete once the build is done), with the build's. */
  stats(build: IndexBuildStats): FolderIndexStats;
  /** The error to throw when every file listed turned out unreadable, so nothing was indexed. */
  nothingRead(): RagsynthError;
  /**
   * Keeps what this run learned by reading files (those it skipped; on a shared store, those whose bytes were the
   * store's) for the next run, so it does not read them again: beside the index, or for a PostgreSQL store in this
   * machine's cache folder. Called once the index is written.
   */
  keepReadMemory(): void;
  /**
   * Removes what this run made when it indexed nothing: the cache folder when it made it, else the index file when
   * it made that (an index that was there stays, emptied, as the documents now are). A PostgreSQL store is kept.
   */
  forgetOwnIndex(): Promise<void>;
}

/** Progress that shows nothing (no progress given). */
export const SILENT_PROGRESS: IndexProgress = { start() {}, update() {}, clear() {} };

/**
 * Picks the cache folder and lists the documents to index (walked and examined, none read yet); the build reads
 * each when it reaches it, except the files the stored index holds with the same size, modification time and reader.
 * @throws RagsynthError `document_read` when there is nothing to read
 */
export async function readFolderDocuments(options: FolderIndexOptions): Promise<FolderRead> {
  const { paths, cacheDir, cwd, progress = SILENT_PROGRESS } = options;
  const started = performance.now();
  if (options.refresh === false) return readIndexedFolder(options, started);
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
  // Files the stored index holds with the same size and modification time are listed, not read.
  const opened = options.rebuild ? undefined : await storedFiles(folder, options);
  const stored = opened === "other-version" ? opened : opened?.sources;
  const store = opened === "other-version" ? undefined : opened?.store;
  let read: Omit<FolderRead, "openStore">;
  try {
    read = await listFolder(options, { folder, stored, madeFolder, hadIndex, started });
  } catch (error) {
    await store?.close();
    throw error;
  }
  // An unchanged index is queried through the store just read; anything else is built on it.
  return { ...read, openStore: store };
}

/** {@link readFolderDocuments} once the store's fingerprints are read: the listing and what building on it needs. */
async function listFolder(
  options: FolderIndexOptions,
  {
    folder,
    stored,
    madeFolder,
    hadIndex,
    started,
  }: {
    folder: string;
    stored: StoredSource[] | undefined | "other-version";
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
  const listing = await listDocuments(
    roots.map((root) => root.location),
    {
      ...walkOptions,
      readers: builtInReadersFor(readAs),
      rootNames: named.names,
      signal,
      // Read again when the reader for its ending changed (a new ragsynth, another format), not only the file.
      skipRead: ({ path, size, lastModifiedAt, reader }) => {
        const source = known.get(path);
        if (source?.size === size && source.lastModifiedAt === lastModifiedAt && source.reader === reader)
          return true;
        if (localFingerprints.knows({ path, size, lastModifiedAt, reader }, source)) {
          knownLocally.add(path);
          return true;
        }
        return skippedReads.answer({ path, size, lastModifiedAt, reader }) ?? false;
      },
    },
  );
  // Our own cache folder is no news.
  const report = () => {
    const { skipped, formats } = listing.report();
    return { skipped: skipped.filter((entry) => resolve(named.from, entry.path) !== folder), formats };
  };
  const documents = listing.documents;
  if (documents.length === 0) throw noDocuments(paths, report().skipped);
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
  const unchanged =
    !rebuild && Array.isArray(stored) ? unchangedBuildStats(documents, stored, embedModel) : undefined;
  const unreadable = new Set<string>();
  const readDocument: BuildReadDocument = async (document, { unlessBytesHash, parser } = {}) => {
    // The build's worker threads parse the files: the readers here are built-in ones by `readAs`, which a thread
    // makes again.
    const parseElsewhere: ParseElsewhere | undefined =
      parser && ((chosen, input) => parser.parse(readAs, chosen, input));
    // Only documents the store does not hold unchanged are read: one listed as known (unread) means the store
    // changed since the listing (another process rebuilt it), so it is read after all. One the store holds under
    // another size or time is first compared by its bytes.
    const read =
      unlessBytesHash === undefined
        ? await listing.read(document, { evenIfKnown: true, parseElsewhere })
        : await listing.readUnlessBytes(document, unlessBytesHash, { parseElsewhere });
    if (read === "same-bytes" && unlessBytesHash !== undefined)
      localFingerprints.note(document, unlessBytesHash);
    if (read === undefined) {
      unreadable.add(document.id);
      skippedReads.noteSkipped(document, listing.whySkipped(document));
    }
    return read;
  };
  const stats = (build: IndexBuildStats) => {
    const { skipped, formats } = report();
    return {
      cacheDir: storeLabel(folder),
      files: documents.length - unreadable.size,
      formats,
      skipped,
      skippedCounts: countSkipped(skipped),
      chunks: build.chunks,
      embedded: build.embedded,
      reused: build.reused,
      sources: build.sources,
      threads: build.threads ?? 0,
      ...(build.threadsFailed === undefined ? {} : { threadsFailed: build.threadsFailed }),
      durationMs: performance.now() - started,
    };
  };
  return {
    folder,
    ...buildSettings(options),
    documents,
    readDocument,
    rebuild,
    unchanged,
    namesFrom: named.from,
    stats,
    nothingRead: () => noDocuments(paths, report().skipped),
    keepReadMemory: () => {
      skippedReads.save();
      localFingerprints.save();
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
 * {@link readFolderDocuments} with `refresh: false`: the stored index as it is, its files listed from its rows (none
 * walked, examined or read), so an ask costs the same however many files the folder holds.
 * @throws RagsynthError `index_load` when there is no index built with these settings to query;
 *   InvalidArgumentError with `rebuild`
 */
async function readIndexedFolder(options: FolderIndexOptions, started: number): Promise<FolderRead> {
  const { paths, cacheDir, cwd, embedModel } = options;
  if (options.rebuild) {
    throw new InvalidArgumentError({
      parameter: "rebuild",
      value: options.rebuild,
      expected: "be false with refresh: false (the index is queried as it was built, never built again)",
      hint: "Drop refresh: false to build the index again, or rebuild to query it as it is.",
    });
  }
  const folder =
    options.store ??
    (cacheDir === undefined
      ? writtenCacheDir(await defaultCacheDir(paths, cwd), options.userCacheDir)
      : resolve(cwd, cacheDir));
  const opened = await storedFiles(folder, { ...options, onNotice: undefined });
  if (opened === undefined || opened === "other-version") {
    throw new RagsynthError({
      code: "index_load",
      message: `Expected an index in ${storeLabel(folder)} built with this embedding model and chunk size to answer from as it is (no refresh), but ${opened === undefined ? "there is none" : "it was written by another ragsynth version"}. Build it first (ragsynth index ${paths.join(" ")}, with the same --embed, --chunk-size and --cache-dir or --store), or drop --no-refresh to build it as the files are.`,
    });
  }
  const { store, sources } = opened;
  const known = new Map(sources.map((source) => [source.id, source]));
  const formats: Record<string, number> = {};
  for (const { reader } of sources) {
    const format = reader?.slice(0, reader.lastIndexOf("@")) || "unknown";
    formats[format] = (formats[format] ?? 0) + 1;
  }
  const noRead = () =>
    new RagsynthError({
      code: "invalid_argument",
      message: "Expected no file to be read: this index is queried as it was built (refresh: false).",
    });
  return {
    folder,
    ...buildSettings(options),
    documents: [],
    readDocument: () => Promise.reject(noRead()),
    rebuild: false,
    unchanged: storedBuildStats(sources, embedModel),
    openStore: store,
    namesFrom: namesAsStored(givenRoots(paths, cwd), known, cwd).from,
    stats: (build) => ({
      cacheDir: storeLabel(folder),
      files: sources.length,
      formats: Object.fromEntries(Object.entries(formats).sort(([left], [right]) => (left < right ? -1 : 1))),
      skipped: [],
      skippedCounts: {},
      chunks: build.chunks,
      embedded: build.embedded,
      reused: build.reused,
      sources: build.sources,
      threads: 0,
      durationMs: performance.now() - started,
    }),
    nothingRead: noRead,
    keepReadMemory: () => {},
    forgetOwnIndex: async () => {},
  };
}

/** What a {@link FolderRead} passes on from the options to the build. */
function buildSettings({ embedModel, splitter, threads, embedLabel }: FolderIndexOptions) {
  return { embedModel, splitter, threads, embedLabel };
}

/** The paths given, each with the name its files are listed under (relative to the working folder when inside it). */
function givenRoots(paths: readonly string[], cwd: string): { location: string; name: string }[] {
  return paths.map((path) => ({ location: resolve(cwd, path), name: sourcePath(path, cwd) }));
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

/** The error when nothing was read: what was given and the first few reasons. */
function noDocuments(paths: readonly string[], skipped: readonly SkippedPath[]): RagsynthError {
  const shown = skipped.slice(0, 3).map((entry) => `${entry.path}: ${entry.reason}`);
  const passed =
    skipped.length > 0
      ? ` (${skipped.length} skipped: ${shown.join("; ")}${skipped.length > 3 ? "; …" : ""})`
      : "";
  return new RagsynthError({
    code: "document_read",
    message: `No documents to read in ${paths.join(", ")}${passed}. Point ragsynth at files or a folder of documents.`,
  });
}

/**
 * How the reader is given a path: relative to the working folder when it lies inside it, otherwise absolute. A file's
 * name in the index then does not depend on how the path was typed (an index built with `/home/me/docs` is reused
 * by `ask docs`, instead of every file looking new).
 */
function sourcePath(path: string, cwd: string): string {
  return cwd === process.cwd() ? displayPath(path, cwd) : resolve(cwd, path);
}

/**
 * The stored index's files (fingerprints and chunk counts) with the store they were read from (open), or
 * `"other-version"` (with a notice) when the cache was written in another index format: a cache is rebuilt then,
 * not refused. A damaged file of this format still stops the run.
 */
async function storedFiles(
  folder: string,
  { embedModel, splitter, signal, onNotice }: FolderIndexOptions,
): Promise<{ store: IndexStore; sources: StoredSource[] } | undefined | "other-version"> {
  try {
    // Fingerprints only: the node ids of 10^6 chunks are not what a freshness check needs.
    return await openStoredFiles(folder, { embedModel, splitter, signal });
  } catch (error) {
    if (!isOtherIndexVersion(error)) throw error;
    onNotice?.({
      kind: "other-version",
      message: `the cached index in ${storeLabel(folder)} was written by another ragsynth version (another index format); rebuilding it.`,
    });
    return "other-version";
  }
}
