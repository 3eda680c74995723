import { existsSync, rmSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { lexicalDocumentTerms } from "../analysis/lexical-tokens.js";
import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { holdsImage } from "../reader/image-references.js";
import { createFusionRetriever } from "../retrieval/fusion-retriever.js";
import { createLexicalRetriever } from "../retrieval/lexical-retriever.js";
import { RETRIEVAL_MODES, type Retriever } from "../retrieval/retriever.js";
import { asyncIndexStore } from "../store/async-index-store.js";
import type { IndexStore, SourceEdit, SyncIndexStore } from "../store/index-store.js";
import { OTHER_INDEX_VERSION, openSqliteStore, SQLITE_INDEX_FILE } from "../store/open-sqlite-store.js";
import { createStoreLexicalSearch } from "../store/store-lexical-search.js";
import type { IndexEntry } from "./embed-nodes.js";
import { type AsRetrieverOptions, defaultRetrievalMode, lexicalContent } from "./index-retriever.js";
import type { IndexSource } from "./index-source.js";
import { storeMetaFor } from "./store-build.js";
import { createStoreDenseRetriever } from "./store-dense-retriever.js";

/** The index file of ragsynth 0.2 (gzip JSON Lines) and its vectors files: read no more, rebuilt from the documents. */
const OLD_INDEX_FILE = "ragsynth-index.json.gz";
const OLD_VECTORS = /^ragsynth-vectors-[0-9a-f]+\.bin$/;

/** The file an index is kept in, inside the folder given to `persist`, `load` and `fromDocumentsCached`. */
export const INDEX_FILE_NAME = SQLITE_INDEX_FILE;

/**
 * Whether `dir` holds an index ragsynth can read.
 * @throws RagsynthError `index_load` for a folder with only an index of the former format, or a file that is not one
 */
export async function checkStoredIndex(dir: string): Promise<boolean> {
  const old = oldFormatError(dir);
  if (old) throw old;
  if (!hasStore(dir)) return false;
  const store = openStore(dir);
  try {
    return (await store.meta()) !== undefined;
  } finally {
    await store.close();
  }
}

/** Whether `dir` holds a SQLite index. */
export function hasStore(dir: string): boolean {
  return existsSync(path.join(dir, SQLITE_INDEX_FILE));
}

/** Opens the index in `dir`, creating it when missing. */
export function openStore(dir: string): IndexStore {
  return asyncIndexStore(openSqliteStore(dir));
}

/**
 * Opens the index in `dir` to rebuild or overwrite it: a file of another layout is emptied, one that cannot be
 * opened (damaged, not a database) is replaced.
 */
export function openFreshStore(dir: string): IndexStore {
  try {
    return asyncIndexStore(openSqliteStore(dir, { replaceOtherLayout: true }));
  } catch (error) {
    if (!RagsynthError.isInstance(error, "index_load")) throw error;
    for (const suffix of ["", "-wal", "-shm"])
      rmSync(path.join(dir, SQLITE_INDEX_FILE + suffix), { force: true });
    return asyncIndexStore(openSqliteStore(dir));
  }
}

/**
 * The `index_load` error for a folder holding only an index of the former format (a gzip JSON Lines file):
 * `isOtherIndexVersion` is true of it, so the CLI rebuilds with a notice.
 */
export function oldFormatError(dir: string): RagsynthError | undefined {
  if (hasStore(dir) || !existsSync(path.join(dir, OLD_INDEX_FILE))) return undefined;
  return Object.assign(
    new RagsynthError({
      code: "index_load",
      message: `The index in ${dir} (${OLD_INDEX_FILE}) was written in the former format, which this ragsynth no longer reads. Rebuild it (fromDocumentsCached with rebuild, or ragsynth index --rebuild); the new index is one SQLite file, ${SQLITE_INDEX_FILE}.`,
    }),
    { [OTHER_INDEX_VERSION]: "json-lines" },
  );
}

/**
 * Whether `error` is the `index_load` error of an index written in another format (ragsynth 0.2's JSON Lines file,
 * or a SQLite index of another layout version):
 * a cache can then simply be rebuilt, while a damaged index of this version should be looked at.
 */
export function isOtherIndexVersion(error: unknown): boolean {
  return typeof error === "object" && error !== null && OTHER_INDEX_VERSION in error;
}

/** Removes the former format's files from `dir` once the SQLite index is written. */
export async function removeOldFormat(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === OLD_INDEX_FILE || OLD_VECTORS.test(name)) await rm(path.join(dir, name), { force: true });
  }
}

/** Writes an in-memory index into an emptied store: one edit per document, loose nodes in one more. */
export async function writeEntries(
  store: IndexStore,
  embedModel: Embedder,
  entries: readonly IndexEntry[],
  sources: readonly IndexSource[],
  splitter: string,
): Promise<void> {
  const meta = storeMetaFor(embedModel, splitter);
  await store.reset(meta);
  const byId = new Map(entries.map((entry) => [entry.node.id, entry]));
  const chunk = (entry: IndexEntry) => ({
    node: entry.node,
    contentHash: entry.contentHash,
    terms: lexicalDocumentTerms(lexicalContent(entry.node)),
    embedding: meta.storeVectors ? entry.embedding : undefined,
    holdsImage: holdsImage(entry.node),
  });
  const edits: SourceEdit[] = [];
  const placed = new Set<string>();
  for (const { nodeIds, ...source } of sources) {
    const chunks = nodeIds.flatMap((id) => {
      const entry = byId.get(id);
      if (!entry) return [];
      placed.add(id);
      return [chunk(entry)];
    });
    edits.push({ source, chunks });
  }
  const loose = entries.filter((entry) => !placed.has(entry.node.id));
  if (loose.length > 0) edits.push({ source: null, chunks: loose.map(chunk) });
  await store.write(edits);
}

/** Every entry of a store (a full read: for `nodes`, `lexicalIndex` and `persist` elsewhere). */
export async function readEntries(store: IndexStore): Promise<IndexEntry[]> {
  const entries: IndexEntry[] = [];
  const withVectors = (await store.meta())?.storeVectors === true;
  for await (const batch of store.allChunks()) {
    const vectors = withVectors ? await store.vectors(batch.map((chunk) => chunk.contentHash)) : new Map();
    for (const { node, contentHash } of batch) {
      const embedding = vectors.get(contentHash);
      entries.push(embedding ? { node, contentHash, embedding } : { node, contentHash });
    }
  }
  return entries;
}

/** {@link readEntries} on a synchronous store (SQLite), for the synchronous `nodes` getter. */
export function readEntriesNow(store: SyncIndexStore): IndexEntry[] {
  const entries: IndexEntry[] = [];
  const withVectors = store.meta()?.storeVectors === true;
  for (const batch of store.allChunks()) {
    const vectors = withVectors ? store.vectors(batch.map((chunk) => chunk.contentHash)) : new Map();
    for (const { node, contentHash } of batch) {
      const embedding = vectors.get(contentHash);
      entries.push(embedding ? { node, contentHash, embedding } : { node, contentHash });
    }
  }
  return entries;
}

/** {@link readSources} on a synchronous store (SQLite), for the synchronous `sources` getter. */
export function readSourcesNow(store: SyncIndexStore): IndexSource[] {
  // One snapshot: the documents and their chunks' ids as one committed state (SQLite reads all ids at once then).
  return store.read(() =>
    store.sources().map(({ chunkCount: _count, ...source }) => ({
      ...source,
      nodeIds: store.sourceNodeIds(source.id),
    })),
  );
}

/** The store's documents as `IndexSource`s, with their node ids. */
export async function readSources(store: IndexStore): Promise<IndexSource[]> {
  return store.read(async () => {
    const all = await store.nodeIdsBySource?.();
    const sources: IndexSource[] = [];
    for (const { chunkCount: _count, ...source } of await store.sources())
      sources.push({
        ...source,
        nodeIds: all ? (all.get(source.id) ?? []) : await store.sourceNodeIds(source.id),
      });
    return sources;
  });
}

/** The retriever for one mode over a store: reads the query terms' postings and the best chunks only. */
export function createStoreRetriever(
  store: IndexStore,
  embedModel: Embedder,
  { retrievalMode = defaultRetrievalMode(embedModel), similarityTopK = 2 }: AsRetrieverOptions,
): Retriever {
  if (!RETRIEVAL_MODES.includes(retrievalMode)) {
    throw new InvalidArgumentError({
      parameter: "retrievalMode",
      value: retrievalMode,
      expected: `be one of ${RETRIEVAL_MODES.map((mode) => `"${mode}"`).join(", ")}`,
    });
  }
  const dense = () => createStoreDenseRetriever(store, embedModel, { similarityTopK });
  if (retrievalMode === "dense") return dense();
  const search = createStoreLexicalSearch(store);
  const bm25 = createLexicalRetriever({ index: search, getNode: search.getNode, similarityTopK });
  if (retrievalMode === "lexical") return bm25;
  return createFusionRetriever({ retrievers: [bm25, dense()], similarityTopK });
}
