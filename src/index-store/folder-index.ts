import type { Embedder } from "../embedding/types.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexStore } from "../store/index-store.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import type { FromDocumentsOptions, NodeParser } from "./build-index-options.js";
import { takeBuildLease } from "./build-lease.js";
import type { FolderIndexStats } from "./folder-index-stats.js";
import { readFolderDocuments } from "./folder-read.js";
import {
  type FolderIndexOptions,
  type FolderRead,
  type IndexProgress,
  SILENT_PROGRESS,
} from "./folder-read-options.js";
import { IndexSaveError } from "./index-save-error.js";
import { storeBuiltFor } from "./stored-sources.js";
import { buildOnStore, indexOnStore, VectorStoreIndex } from "./vector-store-index.js";

/** How {@link buildFolderIndex} builds: when it returns (`persist`), and the caller's signal and callbacks. */
interface BuildSettings {
  persist: "await" | "background";
  signal: AbortSignal;
  progress?: IndexProgress | undefined;
  onBuildStart?: FolderIndexOptions["onBuildStart"];
}

export interface OpenedFolderIndex {
  index: VectorStoreIndex;
  embedModel: Embedder;
  stats: FolderIndexStats;
  /** The folder the documents' relative `file_path`s are named from (`FolderRead.namesFrom`). */
  namesFrom: string;
  /** Why the index could not be written (queries are still answered, from an index in memory). */
  saveError?: unknown;
}

/**
 * Builds the index on the stored one: chunks whose text has not changed keep their stored embeddings, the rest
 * are embedded. `persist: "background"` saves it while the caller goes on (`index.saved` settles when it is
 * written; an index that cannot be written is still returned, from memory, with `saveError`); `"await"` returns
 * once it is written.
 */
export async function buildFolderIndex(
  read: FolderRead,
  settings: BuildSettings,
): Promise<OpenedFolderIndex> {
  try {
    return await buildOnRead(read, settings);
  } catch (error) {
    read.lease?.release();
    throw error;
  }
}

async function buildOnRead(
  {
    folder,
    embedModel,
    splitter,
    threads,
    embedLabel,
    documents,
    onlyChanged,
    readDocument,
    rebuild,
    unchanged,
    openStore,
    stats,
    nothingRead,
    keepReadMemory,
    forgetOwnIndex,
    namesFrom,
    lease,
  }: FolderRead,
  { persist, signal, progress = SILENT_PROGRESS, onBuildStart }: BuildSettings,
): Promise<OpenedFolderIndex> {
  // The store the listing read its files' rows from, while it is open.
  let held = openStore;
  if (unchanged) {
    // Nothing to write: that store answers the queries (one open per ask: for a PostgreSQL store one pool and
    // connection, not one for the check and another for the queries).
    const index = held
      ? await onHeldStore(held, embedModel, splitter)
      : await openUnchanged(folder, embedModel, signal);
    if (index) {
      lease?.release();
      keepReadMemory();
      return { index, embedModel, stats: stats(unchanged), namesFrom };
    }
    // onHeldStore closed it.
    held = undefined;
  }
  // Only the files listed again are built when the store is still one of these settings: another process may have
  // rebuilt it for others since the listing, and then every file is.
  const partial =
    onlyChanged && held && (await builtFor(held, embedModel, splitter)) ? onlyChanged : undefined;
  const listed = partial?.documents ?? documents();
  progress.start("Splitting into chunks", listed.length);
  const buildOptions: FromDocumentsOptions = {
    embedModel,
    ...(splitter ? { splitter } : {}),
    signal,
    onSplitProgress: ({ split }) => progress.update(split),
    onProgress: ({ embedded, total }) => {
      if (embedded === 0) progress.start(`Embedding with ${embedLabel}`, total);
      progress.update(embedded);
    },
  };
  let index: VectorStoreIndex;
  // Askers that find this lease answer from what the build has committed (readFolderDocuments). An ask that finds
  // another build's lease only now (it began after this listing did) builds beside it, as before leases.
  const releaseLease = lease?.release ?? (isPostgresUrl(folder) ? () => {} : leaseOrNone(folder));
  try {
    // Built on the store held open: not opened again, its rows not read again (the memo of `sources`).
    index = await buildOnStore(
      listed,
      folder,
      {
        ...buildOptions,
        embedModel,
        rebuild,
        readDocument,
        ...(threads === undefined ? {} : { threads }),
        ...(partial ? { listedIds: partial.ids } : {}),
        ...(onBuildStart ? { onBuildStart } : {}),
      },
      held,
    );
  } catch (error) {
    releaseLease();
    if (persist !== "background" || !IndexSaveError.isInstance(error)) throw error;
    // An index in memory holds every text anyway: read them all (again, those the failed build had read).
    const read: TextNode[] = [];
    for (const document of documents()) {
      signal.throwIfAborted();
      // Asked without a bytes hash, a read is never "same-bytes".
      const whole = await readDocument(document);
      if (whole && whole !== "same-bytes") read.push(whole);
    }
    if (read.length === 0) throw nothingRead();
    index = await VectorStoreIndex.fromDocuments(read, buildOptions);
    return { index, embedModel, stats: stats(index.buildStats), namesFrom, saveError: error };
  }
  const settled = () => releaseLease();
  index.saved.then(settled, settled);
  const built = stats(index.buildStats);
  if (built.files === 0) {
    // A folder pointed at by mistake (nothing in it can be read) is left as it was found.
    await index.close();
    await forgetOwnIndex();
    throw nothingRead();
  }
  keepReadMemory();
  return { index, embedModel, stats: built, namesFrom };
}

function leaseOrNone(folder: string): () => void {
  const attempt = takeBuildLease(folder);
  return "release" in attempt ? attempt.release : () => {};
}

/**
 * Opens a folder's index for querying: reads the documents and builds the index on the one stored in the cache
 * folder, and saves it back while the caller queries; await {@link folderIndexSaved} before the process ends.
 * Queries are weighted by the index's own documents (`index.queryEmbedModel`). With `whileAnotherBuilds:
 * "answer-as-is"`, when another live process is building the folder's SQLite index (its lease, `build-lease.ts`),
 * the index is queried as that process has committed it, nothing is listed or written, and `onNotice` says so.
 * @throws RagsynthError `document_read` when there is nothing to read
 */
export async function openFolderIndex(options: FolderIndexOptions): Promise<OpenedFolderIndex> {
  const { signal, progress, onBuildStart } = options;
  return buildFolderIndex(await readFolderDocuments(options), {
    persist: "background",
    signal,
    progress,
    onBuildStart,
  });
}

/**
 * Brings a folder's index up to date without loading an index that already is (same embedding model, every file
 * the same size and modification time): then only the index file's first line is read and nothing is written.
 * Otherwise the index is written before it returns.
 */
export async function refreshFolderIndex(
  options: FolderIndexOptions,
): Promise<Omit<OpenedFolderIndex, "index"> & { index?: VectorStoreIndex }> {
  const read = await readFolderDocuments(options);
  const { signal, progress, onBuildStart } = options;
  if (read.unchanged) {
    read.lease?.release();
    await read.openStore?.close();
    read.keepReadMemory();
    return { embedModel: read.embedModel, stats: read.stats(read.unchanged), namesFrom: read.namesFrom };
  }
  return buildFolderIndex(read, { persist: "await", signal, progress, onBuildStart });
}

/**
 * Waits for the write {@link openFolderIndex} left running (after an edit to one file of a 30 MB corpus the write
 * takes longer than an answer), with a progress line while it lasts. A failed write (or one that could not start,
 * `saveError`) is thrown.
 */
export async function folderIndexSaved(
  opened: OpenedFolderIndex,
  progress: IndexProgress = SILENT_PROGRESS,
): Promise<void> {
  if (opened.saveError !== undefined) throw opened.saveError;
  const { saved } = opened.index;
  // No progress line for a write that is already done (or none was started).
  const settled = () => true;
  const done = await Promise.race([
    saved.then(settled, settled),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
  if (done) {
    await saved;
    return;
  }
  progress.start("Saving the index");
  try {
    await saved;
  } finally {
    progress.clear();
  }
}

/** Whether `store` holds an index of these settings; closes it when that cannot be read. */
async function builtFor(
  store: IndexStore,
  embedModel: Embedder,
  splitter: NodeParser | undefined,
): Promise<boolean> {
  try {
    return await storeBuiltFor(store, { embedModel, splitter });
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * The index on the store the listing held open, or `undefined` (the store closed) when another process rebuilt it
 * for another embedding model or splitter since its rows were read: the build then brings it up to date.
 */
async function onHeldStore(
  store: IndexStore,
  embedModel: Embedder,
  splitter: NodeParser | undefined,
): Promise<VectorStoreIndex | undefined> {
  if (await builtFor(store, embedModel, splitter)) return indexOnStore(store, embedModel);
  await store.close();
  return undefined;
}

/**
 * The stored index, opened for queries only, or `undefined` when it can no longer be (another process replaced it
 * with one of another embedding model or format since its rows were read): the build then brings it up to date.
 */
async function openUnchanged(
  folder: string,
  embedModel: Embedder,
  signal: AbortSignal,
): Promise<VectorStoreIndex | undefined> {
  try {
    return await VectorStoreIndex.load(folder, { embedModel, signal });
  } catch (error) {
    if (signal.aborted || !RagsynthError.isInstance(error) || error.code !== "index_load") throw error;
    return undefined;
  }
}
