import { setImmediate as nextTurn } from "node:timers/promises";
import { LEXICAL_ANALYZER, lexicalDocumentTerms } from "../analysis/lexical-tokens.js";
import type { Embedder } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import { holdsImage } from "../reader/image-references.js";
import type { TextNode } from "../schema/text-node.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import type { ChunkInput, IndexStore, SourceEdit, StoredSource, StoreMeta } from "../store/index-store.js";
import type { FromDocumentsOptions, IndexBuildStats } from "./build-index-options.js";
import { storesVectors } from "./check-embed-model.js";
import { checkEmbeddings } from "./embed-nodes.js";
import { contentHash } from "./embedding-cache.js";
import { lexicalContent } from "./index-retriever.js";
import { sameStat } from "./index-sources.js";

/** Chunks split, embedded and written per transaction: a kill loses at most one group, and the next run goes on. */
const GROUP_CHUNKS = 256;
/**
 * Chunks per transaction when no vectors are stored (the offline hashing embedder): a kill then loses only a group's
 * splitting (about a second), and fewer, larger transactions write each term's postings once per group and the
 * tables' pages once per commit (2,048: 28% less time in the store's writes of a first index than 256).
 */
const GROUP_CHUNKS_UNEMBEDDED = 2048;

/** The meta a store must have for `embedModel`; a store with other meta is emptied first. */
export function storeMetaFor(embedModel: Embedder): StoreMeta {
  return { embedderId: embedModel.id, storeVectors: storesVectors(embedModel), analyzer: LEXICAL_ANALYZER };
}

/** Whether the store was built for `meta` (same embedding model, vectors and analyzer). */
export function sameMeta(stored: StoreMeta | undefined, meta: StoreMeta): boolean {
  return (
    stored !== undefined &&
    stored.embedderId === meta.embedderId &&
    stored.storeVectors === meta.storeVectors &&
    stored.analyzer === meta.analyzer
  );
}

/**
 * Brings the store up to date with `documents`, in place: a removed document's rows are deleted, a new or changed
 * one's are written in place of its old rows (split, analyzed, embedded where the store has no vector for the
 * chunk's content), unchanged documents (same size, modification time and reader) are not touched. Each group of
 * documents is one transaction, so readers see whole documents and a killed run leaves every group it committed;
 * the next run finds those documents unchanged and goes on with the rest.
 */
export async function updateStore(
  store: IndexStore,
  documents: readonly TextNode[],
  options: FromDocumentsOptions & { embedModel: Embedder; rebuild?: boolean },
): Promise<{ stats: IndexBuildStats; wrote: boolean }> {
  // Replacing a stored index (another embedding model, a rebuild) is one transaction: an ask running meanwhile in
  // another process reads the old index whole, never an emptied or half-written one. A first build commits each
  // group of documents, so a killed run keeps them and the next one goes on.
  const stored = await store.meta();
  const replacing =
    stored !== undefined && (options.rebuild === true || !sameMeta(stored, storeMetaFor(options.embedModel)));
  return replacing
    ? store.replacing(() => updateInPlace(store, documents, options))
    : updateInPlace(store, documents, options);
}

async function updateInPlace(
  store: IndexStore,
  documents: readonly TextNode[],
  options: FromDocumentsOptions & { embedModel: Embedder; rebuild?: boolean },
): Promise<{ stats: IndexBuildStats; wrote: boolean }> {
  const { embedModel } = options;
  const meta = storeMetaFor(embedModel);
  const stored = await store.meta();
  let previousEmbedModelId: string | undefined;
  let wrote = false;
  if (options.rebuild || !sameMeta(stored, meta)) {
    if (stored && stored.embedderId !== meta.embedderId) previousEmbedModelId = stored.embedderId;
    await store.reset(meta, {
      keepVectors: !options.rebuild && stored?.embedderId === meta.embedderId && meta.storeVectors,
    });
    wrote = true;
  }
  const before = new Map((await store.sources()).map((source) => [source.id, source]));
  const seen = new Set(documents.map((document) => document.id));
  const removed = [...before.keys()].filter((id) => !seen.has(id));
  const sources: IndexBuildStats["sources"] = { added: [], changed: [], unchanged: [], removed };
  const pending: TextNode[] = [];
  for (const document of documents) {
    const source = before.get(document.id);
    if (source && sameStat(document, source)) sources.unchanged.push(document.id);
    else pending.push(document);
  }
  if (removed.length > 0) {
    await store.write([], removed);
    wrote = true;
  }
  const counts = await writeDocuments(store, pending, before, sources, options);
  if (pending.length > 0) wrote = true;
  const order = documents.map((document) => document.id);
  const storedOrder = wrote ? (await store.sources()).map((source) => source.id) : order;
  if (storedOrder.some((id, index) => id !== order[index])) await store.setOrder(order);
  const chunks = (await store.statistics()).documents;
  const stats: IndexBuildStats = {
    chunks,
    embedded: counts.embedded,
    reused: meta.storeVectors ? chunks - counts.embeddedChunks : 0,
    sources,
    ...(previousEmbedModelId === undefined ? {} : { previousEmbedModelId }),
  };
  return { stats, wrote };
}

async function writeDocuments(
  store: IndexStore,
  pending: readonly TextNode[],
  before: ReadonlyMap<string, StoredSource>,
  sources: IndexBuildStats["sources"],
  options: FromDocumentsOptions & { embedModel: Embedder },
): Promise<{ embedded: number; embeddedChunks: number }> {
  const { embedModel, signal, embedBatchSize = 256 } = options;
  checkInteger("embedBatchSize", embedBatchSize, 1);
  const splitter = options.splitter ?? new BlockSplitter();
  const keepVectors = storesVectors(embedModel);
  let embedded = 0;
  let embeddedChunks = 0;
  let dimensions: number | undefined;
  let done = 0;
  const totalEmbedded = { value: 0 };
  let group: { document: TextNode; nodes: TextNode[] }[] = [];
  let groupChunks = 0;
  const flush = async () => {
    if (group.length === 0) return;
    const edits: SourceEdit[] = [];
    const chunkLists = group.map(({ nodes }) =>
      nodes.map((node) => {
        const content = lexicalContent(node);
        return { node, contentHash: contentHash(content), terms: lexicalDocumentTerms(content), content };
      }),
    );
    let vectors = new Map<string, Float32Array>();
    if (keepVectors) {
      const all = chunkLists.flat();
      vectors = await store.vectors([...new Set(all.map((chunk) => chunk.contentHash))]);
      const missing = new Map<string, string>();
      for (const chunk of all) {
        if (!vectors.has(chunk.contentHash)) {
          missing.set(chunk.contentHash, chunk.content);
          embeddedChunks++;
        }
      }
      const entries = [...missing];
      if (entries.length > 0 && totalEmbedded.value === 0)
        options.onProgress?.({ embedded: 0, total: entries.length });
      for (let start = 0; start < entries.length; start += embedBatchSize) {
        signal?.throwIfAborted();
        const batch = entries.slice(start, start + embedBatchSize);
        const result = await embedModel.getTextEmbeddings(
          batch.map(([, text]) => text),
          signal ? { signal } : {},
        );
        signal?.throwIfAborted();
        dimensions = checkEmbeddings(embedModel, result, batch.length, embedded, dimensions);
        for (const [index, [hash]] of batch.entries())
          vectors.set(hash, Float32Array.from(result[index] ?? []));
        embedded += batch.length;
        totalEmbedded.value += batch.length;
        options.onProgress?.({ embedded: totalEmbedded.value, total: totalEmbedded.value });
      }
    }
    signal?.throwIfAborted();
    group.forEach(({ document }, index) => {
      const chunks: ChunkInput[] = (chunkLists[index] ?? []).map(({ node, contentHash: hash, terms }) => ({
        node,
        contentHash: hash,
        terms,
        embedding: vectors.get(hash),
        holdsImage: holdsImage(node),
      }));
      const { file_size: size, last_modified_at: lastModifiedAt, reader } = document.metadata;
      const hash = contentHash(document.text);
      const previous = before.get(document.id);
      if (!previous) sources.added.push(document.id);
      else (previous.contentHash === hash ? sources.unchanged : sources.changed).push(document.id);
      edits.push({
        source: {
          id: document.id,
          contentHash: hash,
          ...(typeof size === "number" ? { size } : {}),
          ...(typeof lastModifiedAt === "string" ? { lastModifiedAt } : {}),
          ...(typeof reader === "string" ? { reader } : {}),
        },
        chunks,
      });
    });
    await store.write(edits);
    done += group.length;
    options.onLexicalProgress?.({ added: done, total: pending.length });
    group = [];
    groupChunks = 0;
    await nextTurn();
    signal?.throwIfAborted();
  };
  let sliceStart = performance.now();
  // Slices of ~50 ms, also inside one large document: Ctrl-C (an aborted signal) and progress lines get their turn.
  const takeTurn = async (split: number) => {
    if (performance.now() - sliceStart <= 50) return;
    options.onSplitProgress?.({ split, total: pending.length });
    await nextTurn();
    signal?.throwIfAborted();
    sliceStart = performance.now();
  };
  for (const [index, document] of pending.entries()) {
    await takeTurn(index);
    signal?.throwIfAborted();
    let nodes: TextNode[];
    if (splitter.iterateNodes) {
      nodes = [];
      for (const node of splitter.iterateNodes(document)) {
        nodes.push(node);
        await takeTurn(index);
      }
    } else nodes = splitter.getNodesFromDocuments([document]);
    group.push({ document, nodes });
    groupChunks += nodes.length;
    if (groupChunks >= (keepVectors ? GROUP_CHUNKS : GROUP_CHUNKS_UNEMBEDDED)) {
      await flush();
      options.onSplitProgress?.({ split: index + 1, total: pending.length });
    }
  }
  await flush();
  options.onSplitProgress?.({ split: pending.length, total: pending.length });
  return { embedded, embeddedChunks };
}
