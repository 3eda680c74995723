import { setImmediate as nextTurn } from "node:timers/promises";
import { LEXICAL_ANALYZER } from "../analysis/lexical-tokens.js";
import type { Embedder } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import { getDocumentBytesHash } from "../reader/document-bytes-hash.js";
import type { TextNode } from "../schema/text-node.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import type {
  IndexStore,
  SourceEdit,
  SourceFingerprint,
  StoredSource,
  StoreMeta,
} from "../store/index-store.js";
import { type AnalyzedChunk, analyzeChunk } from "./analyzed-chunk.js";
import { BuildGroup } from "./build-group.js";
import type {
  BuildReadDocument,
  FromDocumentsCachedOptions,
  FromDocumentsOptions,
  IndexBuildStats,
  NodeParser,
} from "./build-index-options.js";
import { storesVectors } from "./check-embed-model.js";
import { contentHash } from "./embedding-cache.js";
import { sameStat } from "./index-sources.js";
import { type Prepared, readingAhead, splittingAhead } from "./read-ahead.js";
import { pendingBytes, splitPoolFor } from "./split-pool.js";

/** Chunks split, embedded and written per transaction: a kill loses at most one group, and the next run goes on. */
const GROUP_CHUNKS = 256;
/**
 * Chunks per transaction when no vectors are stored (the offline hashing embedder): a kill then loses only a group's
 * splitting, and fewer, larger transactions write each term's postings once per group and the tables' pages once
 * per commit (2,048 took 28% less time in the store's writes of a first index than 256). A group's chunks, terms and
 * postings are most of what a build holds besides the tokenizer's caches, and V8 lets the heap grow to a few times
 * what it holds: on the bench's large corpus 512 kept the first index's peak memory steady and well below 2,048's
 * (which swung by a quarter from run to run), for the same CPU time.
 * Tried and not kept (one run each, 2 cores): transactions of several groups, each group's rows written as it is
 * split and the postings of all gathered and written at the commit. On large10 (306.5 MB, --threads 0) 4,096 chunks
 * a transaction took the postings writes from 22.6 to 15.7 s and the commits from 11.5 to 3.0 s (CPU profiles), but
 * the first index only from 108 to 106 s (16,384: 102 s) for 887 MB of peak memory against 673 (16,384: 1.2 GB);
 * at --threads 2, 75 to 72 s, 1.3 GB; and a write lock held across seconds of splitting.
 */
export const GROUP_CHUNKS_UNEMBEDDED = 512;

/** Options of {@link updateStore}. */
export type UpdateStoreOptions = FromDocumentsOptions & {
  embedModel: Embedder;
  rebuild?: boolean | undefined;
  /** As {@link FromDocumentsCachedOptions.readDocument}, told the build's worker threads when it has some. */
  readDocument?: BuildReadDocument | undefined;
  /** As {@link FromDocumentsCachedOptions.threads}. */
  threads?: number | undefined;
  /** As {@link FromDocumentsCachedOptions.onBuildStart}. */
  onBuildStart?: FromDocumentsCachedOptions["onBuildStart"] | undefined;
  /**
   * Every document's id, in order, when `documents` are only those of them that changed: the others the caller found
   * unchanged at the rows' version it checked (a remembered listing, `listing-snapshot.ts`). Those are kept as they
   * are, and only the rows of `documents` are read (from a store that reads rows by id): nothing is removed, and a
   * document the store does not hold is added after the others.
   */
  listedIds?: readonly string[] | undefined;
};

let defaultSplitterId: string | undefined;

/**
 * The `splitter` a store records for the chunks `splitter` makes: its `id`, `custom` for one without, and the default
 * `BlockSplitter`'s when none is given (what the build then splits with).
 */
export function splitterIdOf(splitter: NodeParser | undefined): string {
  if (splitter === undefined) {
    defaultSplitterId ??= new BlockSplitter().id;
    return defaultSplitterId;
  }
  return typeof splitter.id === "string" && splitter.id !== "" ? splitter.id : "custom";
}

/**
 * The meta a store must have for `embedModel` and the chunks of `splitter` (its id, {@link splitterIdOf}); a store
 * with other meta is emptied first (its vectors kept by content when the embedding model is the same).
 */
export function storeMetaFor(embedModel: Embedder, splitter: string): StoreMeta {
  return {
    embedderId: embedModel.id,
    storeVectors: storesVectors(embedModel),
    analyzer: LEXICAL_ANALYZER,
    splitter,
  };
}

/** Whether the store was built for `meta` (same embedding model, vectors, analyzer and splitter). */
export function sameMeta(stored: StoreMeta | undefined, meta: StoreMeta): boolean {
  return stored !== undefined && metaDifference(stored, meta) === undefined;
}

/**
 * What the store was built with that `meta` does not have, in words for a notice (`another BM25 analyzer (version 5;
 * now 6)`); undefined when it was built for `meta`.
 */
export function metaDifference(stored: StoreMeta, meta: StoreMeta): string | undefined {
  if (stored.embedderId !== meta.embedderId)
    return `another embedding model (${stored.embedderId}; now ${meta.embedderId})`;
  if (stored.storeVectors !== meta.storeVectors)
    return stored.storeVectors
      ? "the chunks' vectors kept (now none)"
      : "no vectors kept (now the chunks' vectors)";
  if (stored.analyzer !== meta.analyzer)
    return `another BM25 analyzer (version ${stored.analyzer}; now ${meta.analyzer})`;
  if (stored.splitter !== meta.splitter) return `another splitter (${stored.splitter}; now ${meta.splitter})`;
  return undefined;
}

/**
 * Brings the store up to date with `documents`, in place: a removed document's rows are deleted, a new or changed
 * one's are written in place of its old rows (split, analyzed, embedded where the store has no vector for the
 * chunk's content), unchanged documents (same size, modification time and reader) are not touched, and those with
 * the bytes the store holds under a new size or time only get them recorded. Each group of
 * documents is one transaction, so readers see whole documents and a killed run leaves every group it committed;
 * the next run finds those documents unchanged and goes on with the rest.
 */
export async function updateStore(
  store: IndexStore,
  documents: readonly TextNode[],
  options: UpdateStoreOptions,
): Promise<{ stats: IndexBuildStats; wrote: boolean }> {
  // Replacing a stored index (another embedding model, a rebuild) is one transaction: an ask running meanwhile in
  // another process reads the old index whole, never an emptied or half-written one. A first build commits each
  // group of documents, so a killed run keeps them and the next one goes on.
  const stored = await store.meta();
  const replacing =
    stored !== undefined &&
    (options.rebuild === true ||
      !sameMeta(stored, storeMetaFor(options.embedModel, splitterIdOf(options.splitter))));
  const { chunksWritten, ...result } = replacing
    ? await store.replacing(() => updateInPlace(store, documents, options))
    : await updateInPlace(store, documents, options);
  // Many new rows (a first index, a large folder changed): let the engine plan and read them as settled tables.
  if (store.settle && chunksWritten >= Math.max(SETTLE_AFTER_CHUNKS, result.stats.chunks / 10))
    await store.settle();
  return result;
}

/** Chunks written at least (and at least a tenth of the index) before a store is asked to {@link IndexStore.settle}. */
const SETTLE_AFTER_CHUNKS = 1_000;

async function updateInPlace(
  store: IndexStore,
  documents: readonly TextNode[],
  options: UpdateStoreOptions,
): Promise<{ stats: IndexBuildStats; wrote: boolean; chunksWritten: number }> {
  const { embedModel } = options;
  const meta = storeMetaFor(embedModel, splitterIdOf(options.splitter));
  const stored = await store.meta();
  let previousEmbedModelId: string | undefined;
  let wrote = false;
  const reset = options.rebuild || !sameMeta(stored, meta);
  // Some documents are not the index's: written anew (other settings, found after the listing checked them), it would
  // hold those alone. Whoever builds on a listing of some documents checks the store's settings first.
  if (options.listedIds && reset)
    throw new Error("internal: only some documents given for a store to be written anew");
  if (reset) {
    if (stored && stored.embedderId !== meta.embedderId) previousEmbedModelId = stored.embedderId;
    await store.reset(meta, {
      keepVectors: !options.rebuild && stored?.embedderId === meta.embedderId && meta.storeVectors,
    });
    wrote = true;
  }
  // An edit of a few files of a remembered listing reads their rows only.
  const only = options.listedIds;
  const seen = new Set(documents.map((document) => document.id));
  const rows = !only
    ? await store.sources()
    : store.sourcesOf
      ? await store.sourcesOf([...seen])
      : (await store.sources()).filter((source) => seen.has(source.id));
  const before = new Map(rows.map((source) => [source.id, source]));
  const removed = only ? [] : [...before.keys()].filter((id) => !seen.has(id));
  const sources: IndexBuildStats["sources"] = { added: [], changed: [], unchanged: [], removed };
  const pending: TextNode[] = [];
  for (const document of documents) {
    const source = before.get(document.id);
    if (source && sameStat(document, source)) sources.unchanged.push(document.id);
    else pending.push(document);
  }
  // The bytes hashes of the stored documents to read, from a store whose `sources()` leaves them out.
  if (store.bytesHashes) {
    const ids = pending.flatMap((document) => (before.get(document.id) ? [document.id] : []));
    if (ids.length > 0) {
      for (const [id, bytesHash] of await store.bytesHashes(ids))
        before.set(id, { ...(before.get(id) as StoredSource), bytesHash });
    }
  }
  if (removed.length > 0) {
    await store.write([], removed);
    wrote = true;
  }
  if (pending.length > 0) options.onBuildStart?.({ documents: pending.length, bytes: pendingBytes(pending) });
  const counts = await writeDocuments(store, pending, before, sources, options);
  if (pending.length > 0) wrote = true;
  // Unchanged by their fingerprint, then by their bytes or text as they were read: listed in the documents' order.
  if (only) {
    const found = new Set(sources.unchanged);
    sources.unchanged = only.filter((id) => !seen.has(id) || found.has(id));
  } else {
    const positions = new Map(documents.map((document, position) => [document.id, position]));
    sources.unchanged.sort((left, right) => (positions.get(left) ?? 0) - (positions.get(right) ?? 0));
  }
  // Documents that could not be read are not in the index (a stored one's rows went with its group).
  const unreadable = new Set(counts.unreadable);
  const order = documents.map((document) => document.id).filter((id) => !unreadable.has(id));
  // A replaced document keeps its position and a removed one leaves the others in order: only a store written anew
  // or a document added (after the last) can leave the stored order unlike the documents'. (Of only some documents,
  // one added goes after the others.)
  const mayBeOutOfOrder = !only && (reset || sources.added.length > 0);
  const storedOrder = mayBeOutOfOrder ? (await store.sources()).map((source) => source.id) : order;
  if (storedOrder.some((id, index) => id !== order[index])) await store.setOrder(order);
  const chunks = (await store.statistics()).documents;
  const stats: IndexBuildStats = {
    chunks,
    embedded: counts.embedded,
    reused: meta.storeVectors ? chunks - counts.embeddedChunks : 0,
    sources,
    ...(previousEmbedModelId === undefined ? {} : { previousEmbedModelId }),
    ...(counts.threads > 0 ? { threads: counts.threads } : {}),
    ...(counts.threadsFailed === undefined ? {} : { threadsFailed: counts.threadsFailed }),
  };
  return { stats, wrote, chunksWritten: counts.chunksWritten };
}

async function writeDocuments(
  store: IndexStore,
  pending: readonly TextNode[],
  before: ReadonlyMap<string, StoredSource>,
  sources: IndexBuildStats["sources"],
  options: UpdateStoreOptions,
): Promise<{
  embedded: number;
  embeddedChunks: number;
  unreadable: string[];
  chunksWritten: number;
  threads: number;
  threadsFailed: string | undefined;
}> {
  const { embedModel, signal, embedBatchSize = 256 } = options;
  checkInteger("embedBatchSize", embedBatchSize, 1);
  if (options.threads !== undefined) checkInteger("threads", options.threads, 0);
  const splitter = options.splitter ?? new BlockSplitter();
  const keepVectors = storesVectors(embedModel);
  const unreadable: string[] = [];
  const group = new BuildGroup({
    store,
    before,
    sources,
    total: pending.length,
    keepVectors,
    embedModel,
    embedBatchSize,
    signal,
    onProgress: options.onProgress,
    onLexicalProgress: options.onLexicalProgress,
  });
  let sliceStart = performance.now();
  // Slices of ~50 ms, also inside one large document: Ctrl-C (an aborted signal) and progress lines get their turn.
  const takeTurn = async (split: number) => {
    if (performance.now() - sliceStart <= 50) return;
    options.onSplitProgress?.({ split, total: pending.length });
    await nextTurn();
    signal?.throwIfAborted();
    sliceStart = performance.now();
  };
  // A document split in this thread, its chunks analyzed as they come, with turns for Ctrl-C and progress.
  const split = async (document: TextNode, index: number): Promise<AnalyzedChunk[]> => {
    const chunks: AnalyzedChunk[] = [];
    const nodes = splitter.iterateNodes
      ? splitter.iterateNodes(document)
      : splitter.getNodesFromDocuments([document]);
    for (const node of nodes) {
      chunks.push(analyzeChunk(node, keepVectors));
      await takeTurn(index);
    }
    return chunks;
  };
  // With worker threads, each document is split in one of them (and a folder index's files parsed in them) while
  // the build reads and writes the others.
  const pool = splitPoolFor(options.threads, splitter, pending, keepVectors);
  const reading = readingAhead(pending, options.readDocument, before, pool);
  const preparing = pool
    ? splittingAhead(pending, reading, pool)
    : {
        next: async (index: number): Promise<Prepared> => {
          const document = await reading.next(index);
          return typeof document === "object" ? { document, chunks: undefined } : document;
        },
      };
  try {
    for (const [index, listed] of pending.entries()) {
      await takeTurn(index);
      signal?.throwIfAborted();
      let prepared = await preparing.next(index);
      signal?.throwIfAborted();
      if (prepared === "same-bytes") {
        // The bytes the store holds, with a new size or time: its rows stay, the new fingerprint is recorded with
        // the group.
        sources.unchanged.push(listed.id);
        group.sameBytes(fingerprintOf(listed));
        continue;
      }
      if (!prepared) {
        unreadable.push(listed.id);
        const stored = before.has(listed.id);
        if (stored) sources.removed.push(listed.id);
        group.unreadable(listed.id, stored);
        continue;
      }
      const source = sourceRow(prepared.document);
      const chunks = prepared.chunks ?? (await split(prepared.document, index));
      // Not held while its group is written: a document's text, and through it its blocks and the text of the file
      // they were cut from (a 30.6 MB file: ~115 MB of two-byte strings), are not needed once it is split.
      prepared = undefined;
      group.add(source, chunks);
      if (group.chunks >= (keepVectors ? GROUP_CHUNKS : GROUP_CHUNKS_UNEMBEDDED)) {
        await group.flush();
        options.onSplitProgress?.({ split: index + 1, total: pending.length });
      }
    }
    await group.flush();
    await pool?.close();
  } finally {
    await pool?.terminate();
  }
  options.onSplitProgress?.({ split: pending.length, total: pending.length });
  // Threads that split or parsed something: none when they could not start (the build did all itself), and then
  // why, when one failed.
  const worked = pool !== undefined && pool.documentsSplit + pool.filesParsed > 0;
  const threads = pool && worked ? pool.threads : 0;
  const threadsFailed = pool && !worked ? pool.failure : undefined;
  const { embedded, embeddedChunks, chunksWritten } = group;
  return { embedded, embeddedChunks, unreadable, chunksWritten, threads, threadsFailed };
}

/** A document's `sources` row: its id, content hash, and the size, modification time and reader it was read with. */
function sourceRow(document: TextNode): NonNullable<SourceEdit["source"]> {
  const { reader } = document.metadata;
  const bytesHash = getDocumentBytesHash(document);
  return {
    ...fingerprintOf(document),
    contentHash: contentHash(document.text),
    ...(typeof reader === "string" ? { reader } : {}),
    ...(bytesHash === undefined ? {} : { bytesHash }),
  };
}

/** A document's id with the size and time of its file (its metadata). */
function fingerprintOf(document: TextNode): SourceFingerprint {
  const { file_size: size, last_modified_at: lastModifiedAt } = document.metadata;
  return {
    id: document.id,
    ...(typeof size === "number" ? { size } : {}),
    ...(typeof lastModifiedAt === "string" ? { lastModifiedAt } : {}),
  };
}
