import type { Embedder } from "../embedding/types.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexStore } from "../store/index-store.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import type { IndexBuildStats } from "./build-index-options.js";
import type { IndexEntry } from "./embed-nodes.js";
import type { IndexSource } from "./index-source.js";
import { type UpdateStoreOptions, updateStore } from "./store-build.js";
import { oldFormatError, removeOldFormat, writeEntries } from "./store-index.js";
import { indexWriteError, openStoreAt } from "./store-location.js";

/** What {@link buildCachedStore} leaves: the open store, what the build did, and whether it wrote. */
export interface CachedStore {
  store: IndexStore;
  stats: IndexBuildStats;
  wrote: boolean;
  hasImages: boolean;
}

/**
 * Brings the store at `cacheDir` (a folder, or a PostgreSQL URL) up to date with `documents`, in place, and leaves it
 * open. A folder holding only the former format is an error unless `rebuild` (which then removes the old files once
 * the new index is written); a failure to write is `indexWriteError`'s. (The body of {@link VectorStoreIndex.fromDocumentsCached}.)
 * `held` is that store already open (the folder index's listing read its rows): built on, not opened again; closed
 * here when the build fails or is a rebuild (which starts from a fresh file).
 */
export async function buildCachedStore(
  documents: readonly TextNode[],
  cacheDir: string,
  options: UpdateStoreOptions & { rebuild: boolean },
  held?: IndexStore,
): Promise<CachedStore> {
  const server = isPostgresUrl(cacheDir);
  if (!options.rebuild && !server) {
    const old = oldFormatError(cacheDir);
    if (old) {
      await held?.close();
      throw old;
    }
  }
  let store: IndexStore | undefined = held;
  try {
    // A rebuild starts from a fresh file, never from a store held open.
    if (store && options.rebuild) {
      await store.close();
      store = undefined;
    }
    store ??= await openStoreAt(cacheDir, { fresh: options.rebuild });
    const { stats, wrote } = await updateStore(store, documents, options);
    if (wrote && !server) await removeOldFormat(cacheDir);
    return { store, stats, wrote, hasImages: await store.hasImages() };
  } catch (error) {
    if (store) await store.close().catch(() => {});
    if (options.signal?.aborted) throw error;
    throw indexWriteError(cacheDir, error);
  }
}

/**
 * Writes `entries` and `sources` as a new index at `dir` (a folder, replacing what is there, or a PostgreSQL URL) and
 * returns its location. (The body of {@link VectorStoreIndex.persist}.)
 * @throws IndexSaveError for a folder that cannot be written; the server's error in ours for PostgreSQL
 */
export async function writeIndexTo(
  dir: string,
  {
    embedModel,
    entries,
    sources,
    splitter,
  }: {
    embedModel: Embedder;
    entries: readonly IndexEntry[];
    sources: readonly IndexSource[];
    splitter: string;
  },
): Promise<string> {
  let store: IndexStore;
  try {
    store = await openStoreAt(dir, { fresh: true });
  } catch (error) {
    throw indexWriteError(dir, error);
  }
  try {
    await writeEntries(store, embedModel, entries, sources, splitter);
  } catch (error) {
    throw indexWriteError(dir, error);
  } finally {
    await store.close();
  }
  if (!isPostgresUrl(dir)) await removeOldFormat(dir);
  return store.location;
}
