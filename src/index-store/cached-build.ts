import path from "node:path";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexStore } from "../store/index-store.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import { SQLITE_INDEX_FILE } from "../store/open-sqlite-store.js";
import type { IndexBuildStats } from "./build-index-options.js";
import { IndexSaveError } from "./index-save-error.js";
import { type UpdateStoreOptions, updateStore } from "./store-build.js";
import { oldFormatError, removeOldFormat } from "./store-index.js";
import { openStoreAt, postgresWriteError } from "./store-location.js";

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
 * the new index is written); a failure to write is `IndexSaveError` (a folder) or the server's error in ours
 * (PostgreSQL). (The body of {@link VectorStoreIndex.fromDocumentsCached}.)
 */
export async function buildCachedStore(
  documents: readonly TextNode[],
  cacheDir: string,
  options: UpdateStoreOptions & { rebuild: boolean },
): Promise<CachedStore> {
  const server = isPostgresUrl(cacheDir);
  if (!options.rebuild && !server) {
    const old = oldFormatError(cacheDir);
    if (old) throw old;
  }
  let store: IndexStore | undefined;
  try {
    store = await openStoreAt(cacheDir, { fresh: options.rebuild });
    const { stats, wrote } = await updateStore(store, documents, options);
    if (wrote && !server) await removeOldFormat(cacheDir);
    return { store, stats, wrote, hasImages: await store.hasImages() };
  } catch (error) {
    if (store) await store.close().catch(() => {});
    if (options.signal?.aborted || RagsynthError.isInstance(error)) throw error;
    if (server) throw postgresWriteError(cacheDir, error);
    throw new IndexSaveError({ path: path.join(cacheDir, SQLITE_INDEX_FILE), dir: cacheDir, cause: error });
  }
}
