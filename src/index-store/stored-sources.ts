import type { Embedder } from "../embedding/types.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexStore, StoredSource } from "../store/index-store.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import type { IndexBuildStats, NodeParser } from "./build-index-options.js";
import { storesVectors, withDefaultEmbedModel } from "./check-embed-model.js";
import type { IndexSource } from "./index-source.js";
import { diffSources, sameStat } from "./index-sources.js";
import { sameMeta, splitterIdOf, storeMetaFor } from "./store-build.js";
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
  options: {
    embedModel?: Embedder | undefined;
    splitter?: NodeParser | undefined;
    signal?: AbortSignal | undefined;
  },
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
  options: {
    embedModel?: Embedder | undefined;
    splitter?: NodeParser | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<StoredSource[] | undefined> {
  return withStoredIndex(cacheDir, options, (store) => store.read(() => store.sources()));
}

/** Opens the index at `cacheDir` and reads it with `read` when it was built for `embedModel` and `splitter`. */
async function withStoredIndex<T>(
  cacheDir: string,
  {
    embedModel,
    splitter,
    signal,
  }: {
    embedModel?: Embedder | undefined;
    splitter?: NodeParser | undefined;
    signal?: AbortSignal | undefined;
  },
  read: (store: IndexStore) => Promise<T> | T,
): Promise<T | undefined> {
  signal?.throwIfAborted();
  const options = withDefaultEmbedModel("documents", [], { embedModel });
  // A PostgreSQL store is opened once (its schema is made when missing, as the build would); a folder is looked at.
  if (!isPostgresUrl(cacheDir) && !(await hasStoreAt(cacheDir))) return undefined;
  const store = await openStoreAt(cacheDir);
  try {
    return sameMeta(await store.meta(), storeMetaFor(options.embedModel, splitterIdOf(splitter)))
      ? await read(store)
      : undefined;
  } finally {
    await store.close();
  }
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
  const chunks = sources.reduce((sum, source) => sum + source.chunkCount, 0);
  return {
    chunks,
    embedded: 0,
    reused: storesVectors(embedModel) ? chunks : 0,
    sources: diffSources(sources, sources),
  };
}
