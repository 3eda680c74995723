import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { MetadataMode, type TextNode } from "../schema/text-node.js";
import { contentHash, type EmbeddingCache } from "./embedding-cache.js";

/** Embedding progress: `embedded` of `total` texts that were not in the cache. */
export interface EmbedProgress {
  embedded: number;
  total: number;
}

/**
 * A node with its embedding (float32) and the hash of the content that was embedded. An index over an
 * embedding model that is cheap to run again (HashingEmbedder) stores no vectors: its entries are embedded on
 * the first dense search.
 */
export interface IndexEntry {
  node: TextNode;
  embedding?: Float32Array;
  contentHash: string;
}

/** What embedding cost: texts sent to the embedModel, and nodes whose embedding was already cached. */
export interface EmbedCounts {
  embedded: number;
  reused: number;
}

export interface EmbedNodesOptions {
  nodes: readonly TextNode[];
  embedModel: Embedder;
  cache: EmbeddingCache;
  batchSize: number;
  signal: AbortSignal | undefined;
  onProgress: ((progress: EmbedProgress) => void) | undefined;
}

/**
 * Embeds what `getContent(MetadataMode.EMBED)` gives for each node, once per distinct content,
 * skipping contents the cache already holds for this embedding model. Texts go to the embedding model in arrays
 * of `batchSize` (it batches further itself); the signal is checked between arrays.
 */
export async function embedNodes({
  nodes,
  embedModel,
  cache,
  batchSize,
  signal,
  onProgress,
}: EmbedNodesOptions): Promise<{ entries: IndexEntry[] } & EmbedCounts> {
  const hashes = nodes.map((node) => contentHash(node.getContent(MetadataMode.EMBED)));
  const missing = new Map<string, string>();
  let reused = 0;
  nodes.forEach((node, index) => {
    const hash = hashes[index] as string;
    if (cache.get(embedModel.id, hash)) reused++;
    else if (!missing.has(hash)) missing.set(hash, node.getContent(MetadataMode.EMBED));
  });

  const pending = [...missing];
  onProgress?.({ embedded: 0, total: pending.length });
  let dimensions: number | undefined;
  for (let start = 0; start < pending.length; start += batchSize) {
    signal?.throwIfAborted();
    const batch = pending.slice(start, start + batchSize);
    const texts = batch.map(([, text]) => text);
    const vectors = await embedModel.getTextEmbeddings(texts, signal ? { signal } : {});
    signal?.throwIfAborted();
    dimensions = checkEmbeddings(embedModel, vectors, texts.length, start, dimensions);
    batch.forEach(([hash], index) => {
      cache.set(embedModel.id, hash, vectors[index] as number[]);
    });
    onProgress?.({ embedded: Math.min(start + batchSize, pending.length), total: pending.length });
  }

  const entries = nodes.map((node, index) => {
    const hash = hashes[index] as string;
    return { node, contentHash: hash, embedding: cache.get(embedModel.id, hash) as Float32Array };
  });
  return { entries, embedded: pending.length, reused };
}

/**
 * Checks what `getTextEmbeddings` returned for `count` texts (the batch starting at text `start`): one array per text,
 * non-empty, of one length (`dimensions` once known), finite. Returns the length.
 * @throws InvalidArgumentError naming the embedModel and the text
 */
export function checkEmbeddings(
  embedModel: Embedder,
  vectors: unknown,
  count: number,
  start: number,
  known: number | undefined,
): number {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    throw new InvalidArgumentError({
      parameter: "embedModel",
      value: embedModel.id,
      expected: `return one embedding per text from getTextEmbeddings (${count} texts), got ${Array.isArray(vectors) ? vectors.length : typeof vectors}`,
      hint: "Fix the embedModel so it keeps the input's length and order.",
    });
  }
  let dimensions = known;
  for (const [index, vector] of vectors.entries()) {
    dimensions ??= Array.isArray(vector) ? vector.length : 0;
    if (!Array.isArray(vector) || vector.length !== dimensions || vector.length === 0 || !allFinite(vector)) {
      throw new InvalidArgumentError({
        parameter: "embedModel",
        value: embedModel.id,
        expected: `return non-empty embeddings of one length (${dimensions}) holding finite numbers, got ${Array.isArray(vector) ? (allFinite(vector) ? `length ${vector.length}` : "a value that is not a finite number (NaN or Infinity)") : typeof vector} for text ${start + index}`,
      });
    }
  }
  return dimensions ?? 0;
}

function allFinite(vector: readonly number[]): boolean {
  for (const value of vector) if (!Number.isFinite(value)) return false;
  return true;
}
