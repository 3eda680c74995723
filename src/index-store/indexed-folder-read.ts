// A folder's index taken as it was last built (`refresh: false`: `ask --no-refresh`), and what listing a folder
// shares with it: the store's files, the roots' names, the settings passed on to the build.
import { resolve } from "node:path";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { DocumentListing, SkippedPath } from "../reader/index.js";
import type { ParseElsewhere } from "../reader/read-file.js";
import type { IndexStore } from "../store/index-store.js";
import { displayPath } from "../util/display-path.js";
import type { BuildReadDocument } from "./build-index-options.js";
import { defaultCacheDir, writtenCacheDir } from "./folder-cache-dir.js";
import type { AsIsIndex } from "./folder-index-stats.js";
import type { FolderIndexOptions, FolderRead } from "./folder-read-options.js";
import { isOtherIndexVersion } from "./store-index.js";
import { storeLabel } from "./store-location.js";
import { namesAsStored } from "./stored-names.js";
import { openBuiltStore, type StoredFiles, storedBuildStats, storedFilesOf } from "./stored-sources.js";

/**
 * `readFolderDocuments` with `refresh: false`: the stored index as it is, its files listed from its rows (none
 * walked, examined or read), so an ask costs the same however many files the folder holds. `resolvedFolder`: the
 * index's folder when the caller has found it already.
 * @throws RagsynthError `index_load` when there is no index built with these settings to query;
 *   InvalidArgumentError with `rebuild`
 */
export async function readIndexedFolder(
  options: FolderIndexOptions,
  started: number,
  resolvedFolder: string | undefined,
  asIs: AsIsIndex,
): Promise<FolderRead> {
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
    resolvedFolder ??
    options.store ??
    (cacheDir === undefined
      ? writtenCacheDir(await defaultCacheDir(paths, cwd), options.userCacheDir)
      : resolve(cwd, cacheDir));
  let builtWith: string | undefined;
  const opened = await storedFiles(folder, {
    ...options,
    onNotice: (notice) => {
      if (notice.kind === "other-build") builtWith = notice.builtWith;
    },
  });
  if (opened === undefined || opened === "other-version") {
    const found =
      opened === "other-version"
        ? "it was written by another ragsynth version"
        : builtWith === undefined
          ? "there is none"
          : `the one there was built with ${builtWith}`;
    throw new RagsynthError({
      code: "index_load",
      message: `Expected an index in ${storeLabel(folder)} built with this embedding model and chunk size to answer from as it is (no refresh), but ${found}. Build it first (ragsynth index ${paths.join(" ")}, with the same --embed, --chunk-size and --cache-dir or --store), or drop --no-refresh to build it as the files are.`,
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
    documents: () => [],
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
      asIs,
      durationMs: performance.now() - started,
    }),
    nothingRead: noRead,
    keepReadMemory: () => {},
    forgetOwnIndex: async () => {},
  };
}

/** What a {@link FolderRead} passes on from the options to the build. */
export function buildSettings({ embedModel, splitter, threads, embedLabel }: FolderIndexOptions) {
  return { embedModel, splitter, threads, embedLabel };
}

/** The paths given, each with the name its files are listed under (relative to the working folder when inside it). */
export function givenRoots(paths: readonly string[], cwd: string): { location: string; name: string }[] {
  return paths.map((path) => ({ location: resolve(cwd, path), name: sourcePath(path, cwd) }));
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
export async function storedFiles(
  folder: string,
  options: FolderIndexOptions,
): Promise<({ store: IndexStore } & StoredFiles) | undefined | "other-version"> {
  const store = await storedStore(folder, options);
  if (store === undefined || store === "other-version") return store;
  try {
    // Fingerprints only: the node ids of 10^6 chunks are not what a freshness check needs.
    return { store, ...(await storedFilesOf(store)) };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** As {@link storedFiles}, with nothing read from the store yet. */
export async function storedStore(
  folder: string,
  { embedModel, splitter, signal, onNotice }: FolderIndexOptions,
): Promise<IndexStore | undefined | "other-version"> {
  try {
    const opened = await openBuiltStore(folder, { embedModel, splitter, signal });
    if (opened === undefined || !("builtWith" in opened)) return opened;
    // Built again in place (the build empties it first): said, as a rebuild of a large folder takes minutes.
    onNotice?.({
      kind: "other-build",
      message: `the cached index in ${storeLabel(folder)} was built with ${opened.builtWith}; building it again.`,
      builtWith: opened.builtWith,
    });
    return undefined;
  } catch (error) {
    if (!isOtherIndexVersion(error)) throw error;
    onNotice?.({
      kind: "other-version",
      message: `the cached index in ${storeLabel(folder)} was written by another ragsynth version (another index format); rebuilding it.`,
    });
    return "other-version";
  }
}

/** The error when nothing was read: what was given and the first few reasons. */
export function noDocuments(paths: readonly string[], skipped: readonly SkippedPath[]): RagsynthError {
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
 * How a build reads a document of `listing`: in full, even one listed as known (the store changed since the listing:
 * another process rebuilt it), or unless its bytes are the store's (`unlessBytesHash`); parsed in the build's worker
 * threads when it has a parser (built-in readers by `readAs`, which a thread makes again).
 */
export function listedDocumentReader(
  listing: DocumentListing,
  readAs: Record<string, string>,
): BuildReadDocument {
  return (document, { unlessBytesHash, parser } = {}) => {
    const parseElsewhere: ParseElsewhere | undefined =
      parser && ((chosen, input) => parser.parse(readAs, chosen, input));
    return unlessBytesHash === undefined
      ? listing.read(document, { evenIfKnown: true, parseElsewhere })
      : listing.readUnlessBytes(document, unlessBytesHash, { parseElsewhere });
  };
}

/**
 * `store`'s rows' version after this run's writes, when every change since `version` was one of them; undefined
 * otherwise, or when the store cannot tell (or was closed: the build opened another).
 */
export function versionAfterOwnWrites(store: IndexStore | undefined, version: number): number | undefined {
  try {
    return store?.sync?.sourcesVersionAfterOwnWrites?.(version);
  } catch {
    return undefined;
  }
}
