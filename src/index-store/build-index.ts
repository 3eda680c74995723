import { setImmediate as nextTurn } from "node:timers/promises";
import type { Embedder } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import { MetadataMode, type TextNode } from "../schema/text-node.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import type { BuildIndexOptions, FromDocumentsOptions, IndexBuildStats } from "./build-index-options.js";
import { storesVectors } from "./check-embed-model.js";
import { embedNodes, type IndexEntry } from "./embed-nodes.js";
import { contentHash, type EmbeddingCache } from "./embedding-cache.js";
import type { IndexSource } from "./index-source.js";
import { describeSource, diffSources, unchangedNodes } from "./index-sources.js";

/** What a {@link VectorStoreIndex} is made of: its entries, the documents they came from, and what building cost. */
export interface BuiltIndex {
  entries: IndexEntry[];
  sources: IndexSource[];
  stats: IndexBuildStats;
}

/** What a build can reuse from a stored index. */
export interface StoredBuildInput {
  /** Embeddings already computed; new ones are added to it. */
  cache: EmbeddingCache;
  /** The stored index's documents (the diff is against them). @default [] */
  previous?: readonly IndexSource[];
  /** The stored index's entries, whose nodes unchanged documents keep. @default [] */
  previousEntries?: readonly IndexEntry[];
  /** The stored index's embedding model id, when it differs from the current one. */
  previousEmbedModelId?: string;
}

/**
 * Splits documents into nodes (keeping the stored nodes of a document whose size and modification time are
 * unchanged) and embeds them, yielding every ~50 ms so an abort and progress lines get their turn.
 */
export async function buildFromDocuments(
  documents: readonly TextNode[],
  options: FromDocumentsOptions & { embedModel: Embedder },
  { cache, previous = [], previousEntries = [], previousEmbedModelId }: StoredBuildInput,
): Promise<BuiltIndex> {
  const splitter = options.splitter ?? new BlockSplitter();
  const before = new Map(previous.map((source) => [source.id, source]));
  const storedNodes = new Map(previousEntries.map((entry) => [entry.node.id, entry.node]));
  const nodes: TextNode[] = [];
  const sources: IndexSource[] = [];
  let sliceStart = performance.now();
  for (const [done, document] of documents.entries()) {
    // Slices of ~50 ms: Ctrl-C (an aborted signal) and progress lines get their turn.
    // Every yield reports the count, so progress moves whichever loop the slice ends in.
    const takeTurn = async () => {
      options.onSplitProgress?.({ split: done, total: documents.length });
      await nextTurn();
      options.signal?.throwIfAborted();
      sliceStart = performance.now();
    };
    if (performance.now() - sliceStart > 50) await takeTurn();
    options.signal?.throwIfAborted();
    const kept = unchangedNodes(document, before.get(document.id), storedNodes);
    let documentNodes = kept;
    if (!documentNodes && splitter.iterateNodes) {
      // A splitter that gives a document's nodes one at a time: the slices go on inside a large document too.
      documentNodes = [];
      for (const node of splitter.iterateNodes(document)) {
        documentNodes.push(node);
        if (performance.now() - sliceStart > 50) await takeTurn();
      }
    }
    documentNodes ??= splitter.getNodesFromDocuments([document]);
    nodes.push(...documentNodes);
    sources.push(describeSource(document, documentNodes, kept ? before.get(document.id) : undefined));
  }
  options.onSplitProgress?.({ split: documents.length, total: documents.length });
  // A kept node keeps its stored content hash: nothing to hash again for an unchanged file.
  const knownHashes = new Map(previousEntries.map((entry) => [entry.node, entry.contentHash]));
  const embedded = await embedOrDefer(nodes, options, cache, knownHashes);
  const stats: IndexBuildStats = {
    chunks: nodes.length,
    embedded: embedded.embedded,
    reused: embedded.reused,
    sources: diffSources(previous, sources),
    ...(previousEmbedModelId === undefined ? {} : { previousEmbedModelId }),
  };
  return { entries: embedded.entries, sources, stats };
}

/** Embeds the nodes, or (for an embedding model whose vectors are not stored) leaves that to the first dense search. */
export async function embedOrDefer(
  nodes: readonly TextNode[],
  options: BuildIndexOptions & { embedModel: Embedder },
  cache: EmbeddingCache,
  knownHashes: ReadonlyMap<TextNode, string> = new Map(),
): Promise<{ entries: IndexEntry[]; embedded: number; reused: number }> {
  if (storesVectors(options.embedModel)) return embed(nodes, options, cache);
  const entries = nodes.map((node) => ({
    node,
    contentHash: knownHashes.get(node) ?? contentHash(node.getContent(MetadataMode.EMBED)),
  }));
  return { entries, embedded: 0, reused: 0 };
}

function embed(
  nodes: readonly TextNode[],
  options: BuildIndexOptions & { embedModel: Embedder },
  cache: EmbeddingCache,
): Promise<{ entries: IndexEntry[]; embedded: number; reused: number }> {
  const { embedModel, embedBatchSize = 256, onProgress, signal } = options;
  checkInteger("embedBatchSize", embedBatchSize, 1);
  return embedNodes({ nodes, embedModel, cache, batchSize: embedBatchSize, signal, onProgress });
}
