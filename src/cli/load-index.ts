import { access, constants, mkdir, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from "node:path";
import type { Embedder } from "../embedding/types.js";
import {
  type FromDocumentsOptions,
  type IndexBuildStats,
  IndexSaveError,
  type IndexSource,
  isOtherIndexVersion,
  VectorStoreIndex,
} from "../index-store/index.js";
import { storeLabel } from "../index-store/store-location.js";
import { builtInReader } from "../reader/formats/registry.js";
import { type DocumentReader, readDocuments, type SkippedPath } from "../reader/index.js";
import type { TextNode } from "../schema/text-node.js";
import { sha256Hex } from "../util/sha256.js";
import type { CliIO } from "./io.js";
import type { EmbedChoice } from "./models.js";
import type { Progress } from "./progress.js";
import { countSkipped, noDocuments } from "./read-report.js";
import { storeFlag } from "./store-flag.js";
import { UsageError } from "./usage-error.js";
import { userCacheDir } from "./user-cache-dir.js";
import type { WalkFlags } from "./walk-flags.js";

/** What opening the index found and cost; `--json` prints it. */
export interface IndexStats {
  /** Absolute path of the cache folder, or the PostgreSQL URL without its password. */
  cacheDir: string;
  /** Documents read. */
  files: number;
  /** Documents read (or listed unchanged), by format: `{ markdown: 12, text: 3 }`. */
  formats: Record<string, number>;
  /** Files and folders passed over, with the reason. */
  skipped: SkippedPath[];
  /** `skipped` counted by reason: `{ binary: 2, ignored: 9 }`. */
  skippedCounts: Record<string, number>;
  chunks: number;
  /** Texts sent to the embedding model on this run (0 when everything came from the cache). */
  embedded: number;
  /** Chunks whose embedding came from the cache. */
  reused: number;
  /** Documents by how they compare with the cached index. */
  sources: IndexBuildStats["sources"];
  durationMs: number;
}

export interface OpenedIndex {
  index: VectorStoreIndex;
  embedModel: Embedder;
  stats: IndexStats;
  /** Why the index could not be written (the question is still answered, from an index in memory). */
  saveError?: unknown;
}

const CACHE_DIR_NAME = ".ragsynth";

/**
 * The default cache folder: `.ragsynth/` inside the folder given (beside the documents; the reader skips
 * hidden folders), beside the file given, or in the nearest folder that holds all the paths given.
 */
export async function defaultCacheDir(paths: readonly string[], cwd: string): Promise<string> {
  const folders: string[] = [];
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    folders.push((await stat(absolute)).isDirectory() ? absolute : dirname(absolute));
  }
  let common = folders[0] ?? cwd;
  for (const folder of folders.slice(1)) {
    while (common !== parse(common).root && folder !== common && !folder.startsWith(common + sep))
      common = dirname(common);
  }
  return join(common, CACHE_DIR_NAME);
}

/** Options of `openIndex` (open-index.ts) and {@link refreshIndex}. */
export interface OpenIndexOptions {
  paths: string[];
  walk: WalkFlags;
  cacheDir: string | undefined;
  /** `--store`: a folder or a PostgreSQL URL (see store-flag.ts). */
  store?: string | undefined;
  embed: EmbedChoice;
  rebuild: boolean;
  io: CliIO;
  signal: AbortSignal;
  progress: Progress;
}

/** The documents read for an index, with what building it needs. */
export interface IndexRead {
  /** The cache folder the index is kept in, or its PostgreSQL URL (printed only through `storeLabel`). */
  folder: string;
  embedModel: Embedder;
  /** Its label for the progress line (`hashing`, the spec as given). */
  embedLabel: string;
  /** Documents read, and those listed unread because the stored index holds them unchanged (empty text). */
  documents: TextNode[];
  /** True when the stored index must not be built on (`--rebuild`, or a cache of another index format). */
  rebuild: boolean;
  /** What opening cost, with a build's counts. */
  stats(build: IndexBuildStats): IndexStats;
}

/**
 * Checks the paths, picks the cache folder and reads the documents, listing (not reading) the files the stored
 * index holds with the same size, modification time and reader.
 * @throws UsageError when a path does not exist; RagsynthError `document_read` when there is nothing to read
 */
export async function readIndexDocuments({
  paths,
  walk,
  cacheDir: cacheDirFlag,
  store,
  embed,
  rebuild,
  io,
  signal,
  progress,
}: OpenIndexOptions): Promise<IndexRead> {
  const started = performance.now();
  await checkPaths(paths, io.cwd);
  progress.start("Reading documents");
  // Sources show relative to the working folder (`examples/docs/modes.md`), whichever way the path was spelled:
  // the index knows files by that name, so `docs`, `./docs` and its absolute path find the same stored files.
  const given = paths.map((path) => sourcePath(path, io.cwd));
  const { url, cacheDir } = storeFlag(store, cacheDirFlag);
  const folder =
    url ??
    (cacheDir === undefined
      ? await writableCacheDir(await defaultCacheDir(paths, io.cwd), io)
      : resolve(io.cwd, cacheDir));
  const embedModel = embed.create();
  // Files the stored index holds with the same size and modification time are listed, not read.
  const stored = rebuild ? undefined : await storedSources(folder, embedModel, signal, io);
  if (stored === "other-version") rebuild = true;
  const known = new Map(
    (stored === "other-version" ? undefined : stored)?.map((source) => [source.id, source]),
  );
  const { readAs, ...walkOptions } = walk;
  const read = await readDocuments(given, {
    ...walkOptions,
    readers: readersFor(readAs),
    signal,
    // Read again when the reader for its ending changed (a new ragsynth, another format), not only the file.
    skipRead: ({ path, size, lastModifiedAt, reader }) => {
      const source = known.get(path);
      return source?.size === size && source.lastModifiedAt === lastModifiedAt && source.reader === reader;
    },
  });
  // Our own cache folder is no news.
  const skipped = read.skipped.filter((entry) => resolve(io.cwd, entry.path) !== folder);
  const documents = read.documents;
  if (documents.length === 0) throw noDocuments(paths, skipped);
  const stats = (build: IndexBuildStats) => ({
    cacheDir: storeLabel(folder),
    files: documents.length,
    formats: read.formats,
    skipped,
    skippedCounts: countSkipped(skipped),
    chunks: build.chunks,
    embedded: build.embedded,
    reused: build.reused,
    sources: build.sources,
    durationMs: performance.now() - started,
  });
  return { folder, embedModel, embedLabel: embed.label, documents, rebuild, stats };
}

/**
 * Builds the index on the stored one: chunks whose text has not changed keep their stored embeddings, the rest
 * are embedded (with a progress bar). `persist: "background"` saves it while the caller goes on (`index.saved`
 * settles when it is written); `"await"` returns once it is written.
 */
export async function buildIndex(
  { folder, embedModel, embedLabel, documents, rebuild, stats }: IndexRead,
  { persist, signal, progress }: { persist: "await" | "background"; signal: AbortSignal; progress: Progress },
): Promise<OpenedIndex> {
  progress.start("Splitting into chunks", documents.length);
  const buildOptions: FromDocumentsOptions = {
    embedModel,
    signal,
    onSplitProgress: ({ split }) => progress.update(split),
    onProgress: ({ embedded, total }) => {
      if (embedded === 0) progress.start(`Embedding with ${embedLabel}`, total);
      progress.update(embedded);
    },
  };
  let index: VectorStoreIndex;
  try {
    index = await VectorStoreIndex.fromDocumentsCached(documents, {
      ...buildOptions,
      cacheDir: folder,
      rebuild,
    });
  } catch (error) {
    // A question is still answered when its index cannot be written (a read-only place): from an index in memory,
    // and the command then exits 1 with the save error (indexSaved). `ragsynth index` fails at once.
    if (persist !== "background" || !IndexSaveError.isInstance(error)) throw error;
    index = await VectorStoreIndex.fromDocuments(documents, buildOptions);
    return { index, embedModel, stats: stats(index.buildStats), saveError: error };
  }
  return { index, embedModel, stats: stats(index.buildStats) };
}

/**
 * `ragsynth index`: reads the documents and builds the index, but does not load an index that is up to date
 * (same embedding model, every file the same size and modification time): then only the index file's first
 * line is read, and nothing is written. Otherwise the index is written before it returns.
 */
export async function refreshIndex(
  options: OpenIndexOptions,
): Promise<Omit<OpenedIndex, "index"> & { index?: VectorStoreIndex }> {
  const read = await readIndexDocuments(options);
  const { signal, progress } = options;
  if (!read.rebuild) {
    const { documents, folder, embedModel } = read;
    const current = await VectorStoreIndex.cachedStats(documents, { cacheDir: folder, embedModel, signal });
    if (current) return { embedModel, stats: read.stats(current) };
  }
  return buildIndex(read, { persist: "await", signal, progress });
}

/** `--read-as` as the reader's `readers` option: each ending read by the built-in reader of its format. */
function readersFor(readAs: Record<string, string>): Record<string, DocumentReader> {
  const readers: Record<string, DocumentReader> = {};
  for (const [ending, format] of Object.entries(readAs)) {
    const reader = builtInReader(format);
    if (reader) readers[ending] = reader;
  }
  return readers;
}

/**
 * How the reader is given a path: relative to the working folder when it lies inside it, otherwise absolute. A file's
 * name in the index then does not depend on how the path was typed (an index built with `/home/me/docs` is reused
 * by `ask docs`, instead of every file looking new).
 */
function sourcePath(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  if (cwd !== process.cwd()) return absolute;
  const inside = relative(cwd, absolute);
  if (inside === "") return ".";
  return inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside) ? absolute : inside;
}

/**
 * The stored index's sources, or `"other-version"` (with a notice) when the cache was written in another index
 * format: a cache is rebuilt then, not refused. A damaged file of this format still stops the run.
 */
async function storedSources(
  folder: string,
  embedModel: Embedder,
  signal: AbortSignal,
  io: CliIO,
): Promise<IndexSource[] | undefined | "other-version"> {
  try {
    return await VectorStoreIndex.storedSources(folder, { embedModel, signal });
  } catch (error) {
    if (!isOtherIndexVersion(error)) throw error;
    io.stderr.write(
      `ragsynth: the cached index in ${storeLabel(folder)} was written by another ragsynth version (another index format); rebuilding it.\n`,
    );
    return "other-version";
  }
}

/** Every path must exist: a missing one is a mistake on the command line (exit 2), not a runtime failure. */
async function checkPaths(paths: readonly string[], cwd: string): Promise<void> {
  for (const path of paths) {
    try {
      await stat(resolve(cwd, path));
    } catch (error) {
      if ((error as { code?: unknown }).code === "ELOOP") {
        throw new UsageError(
          `${path} is a symbolic link loop: following it leads back to itself.`,
          "Point ragsynth at the real file or folder, or fix the link (ls -l shows where it points).",
        );
      }
      throw new UsageError(`No such file or folder: ${path}.`, `Check the path (relative to ${cwd}).`);
    }
  }
}

/**
 * The default cache folder if it can be written, else one in the user's cache directory
 * (`$XDG_CACHE_HOME/ragsynth/<hash of the folder>`, `~/.cache/...` without it), with a notice: a read-only
 * documents folder is still answered.
 */
async function writableCacheDir(folder: string, io: CliIO): Promise<string> {
  try {
    await mkdir(folder, { recursive: true });
    await access(folder, constants.W_OK);
    return folder;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "EACCES" && code !== "EPERM" && code !== "EROFS") return folder;
  }
  const fallback = join(userCacheDir(io.env), sha256Hex(folder).slice(0, 16));
  io.stderr.write(
    `ragsynth: note: ${dirname(folder)} is read-only, so the index is kept in ${fallback} (--cache-dir picks another place).\n`,
  );
  return fallback;
}
