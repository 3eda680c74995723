import type { Embedder } from "../embedding/types.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexStore, StoredSource, StoreMeta } from "../store/index-store.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import type { IndexBuildStats, NodeParser } from "./build-index-options.js";
import { storesVectors, withDefaultEmbedModel } from "./check-embed-model.js";
import type { IndexSource } from "./index-source.js";
import { diffSources, sameStat } from "./index-sources.js";
import { metaDifference, sameMeta, splitterIdOf, storeMetaFor } from "./store-build.js";
import { readSources } from "./store-index.js";
import { hasStoreAt, openStoreAt } from "./store-location.js";

/**
 * The documents of the index in `cacheDir` (a folder, or a PostgreSQL URL) that a cached build would build on with `embedModel`, from the store's
 * `sources` rows; `undefined` when there is none, or it was built with another embedding model, analyzer or splitter.
 * (The body of {@link VectorStoreIndex.storedSources}.)
 * @throws RagsynthError `index_load` for a folder holding only an index of the former format (`isOtherIndexVersion`)
 */
export async function readStoredSources(
  cacheDir: string,
  options: StoredIndexOptions,
): Promise<IndexSource[] | undefined> {
  return withStoredIndex(cacheDir, options, (store) => readSources(store));
}

/**
 * As {@link readStoredSources}, without the node ids: each file's fingerprint (size, modification time, reader,
 * hash) and chunk count, which is what a folder's freshness check needs. An ask over an index of 10^6 chunks then
 * makes 6,220 rows, not 10^6 node id strings.
 */
export async function readStoredFiles(
  cacheDir: string,
  options: StoredIndexOptions,
): Promise<StoredSource[] | undefined> {
  const opened = await openStoredFiles(cacheDir, options);
  if (!opened) return undefined;
  await opened.store.close();
  return opened.sources;
}

/**
 * As {@link readStoredFiles}, with the store left open for the caller (who closes it): a folder's ask that finds
 * every file unchanged queries the store it read the fingerprints from, instead of opening it again (a PostgreSQL
 * store: another pool, connection and layout check per open).
 */
export async function openStoredFiles(
  cacheDir: string,
  options: StoredIndexOptions,
): Promise<({ store: IndexStore } & StoredFiles) | undefined> {
  const store = await openBuiltStore(cacheDir, options);
  if (store === undefined || "builtWith" in store) return undefined;
  try {
    return { store, ...(await storedFilesOf(store)) };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** A store's documents, with the version of their rows when the store keeps one (read together). */
export interface StoredFiles {
  sources: StoredSource[];
  sourcesVersion?: number | undefined;
}

/** The {@link StoredFiles} of an open store. */
export function storedFilesOf(store: IndexStore): Promise<StoredFiles> {
  return store.read(async () => ({
    sources: await store.sources(),
    sourcesVersion: await store.sourcesVersion?.(),
  }));
}

/**
 * The index at `cacheDir`, opened, when there is one built for `embedModel` and `splitter`; else `undefined` (and
 * nothing left open), or what the one there was built with instead (`builtWith`, in words: `metaDifference`), when
 * there is one built for others. Nothing is read from it yet.
 */
export async function openBuiltStore(
  cacheDir: string,
  { embedModel, splitter, signal }: StoredIndexOptions,
): Promise<IndexStore | { builtWith: string } | undefined> {
  signal?.throwIfAborted();
  const options = withDefaultEmbedModel("documents", [], { embedModel });
  // A PostgreSQL store is opened once (its schema is made when missing, as the build would); a folder is looked at.
  if (!isPostgresUrl(cacheDir) && !(await hasStoreAt(cacheDir))) return undefined;
  const store = await openStoreAt(cacheDir);
  let stored: StoreMeta | undefined;
  try {
    stored = await store.meta();
  } catch (error) {
    await store.close();
    throw error;
  }
  const builtWith =
    stored && metaDifference(stored, storeMetaFor(options.embedModel, splitterIdOf(splitter)));
  if (stored !== undefined && builtWith === undefined) return store;
  await store.close();
  return builtWith === undefined ? undefined : { builtWith };
}

interface StoredIndexOptions {
  embedModel?: Embedder | undefined;
  splitter?: NodeParser | undefined;
  signal?: AbortSignal | undefined;
}

/** Opens the index at `cacheDir` and reads it with `read` when it was built for `embedModel` and `splitter`. */
async function withStoredIndex<T>(
  cacheDir: string,
  options: StoredIndexOptions,
  read: (store: IndexStore) => Promise<T> | T,
): Promise<T | undefined> {
  const store = await openBuiltStore(cacheDir, options);
  if (store === undefined || "builtWith" in store) return undefined;
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

/**
 * Whether `store` holds an index built for `embedModel` and `splitter` (asked again of a store held open: another
 * process may have rebuilt it for another model since).
 */
export async function storeBuiltFor(
  store: IndexStore,
  { embedModel, splitter }: { embedModel: Embedder; splitter?: NodeParser | undefined },
): Promise<boolean> {
  return sameMeta(await store.meta(), storeMetaFor(embedModel, splitterIdOf(splitter)));
}

/**
 * What a cached build would report when the index in `cacheDir` is up to date with `documents`, from the store's
 * `sources` rows; `undefined` when something changed. (The body of {@link VectorStoreIndex.cachedStats}.)
 */
export async function readCachedStats(
  documents: readonly TextNode[],
  {
    cacheDir,
    embedModel,
    splitter,
    signal,
  }: {
    cacheDir: string;
    embedModel?: Embedder | undefined;
    splitter?: NodeParser | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<IndexBuildStats | undefined> {
  const options = withDefaultEmbedModel("documents", documents, { embedModel });
  const sources = await readStoredFiles(cacheDir, {
    ...options,
    splitter,
    ...(signal ? { signal } : {}),
  });
  return sources && unchangedBuildStats(documents, sources, options.embedModel);
}

/**
 * What a cached build with `embedModel` would report when the store's `sources` rows hold exactly `documents`, in
 * their order, each with the same size, modification time and reader; `undefined` when something changed.
 */
export function unchangedBuildStats(
  documents: readonly TextNode[],
  sources: readonly StoredSource[],
  embedModel: Embedder,
): IndexBuildStats | undefined {
  if (
    sources.length !== documents.length ||
    !documents.every((document, index) => {
      const source = sources[index] as StoredSource;
      return source.id === document.id && sameStat(document, source);
    })
  ) {
    return undefined;
  }
  return storedBuildStats(sources, embedModel);
}

/** What a cached build with `embedModel` reports when the store's `sources` rows are its documents, every one unchanged. */
export function storedBuildStats(sources: readonly StoredSource[], embedModel: Embedder): IndexBuildStats {
  const chunks = sources.reduce((sum, source) => sum + source.chunkCount, 0);
  return {
    chunks,
    embedded: 0,
    reused: storesVectors(embedModel) ? chunks : 0,
    sources: diffSources(sources, sources),
  };
}
