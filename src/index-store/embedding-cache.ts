import { sha256Hex } from "../util/sha256.js";

/** The SHA-256 of a text, in hex: the cache key of the text's embedding. */
export function contentHash(text: string): string {
  return sha256Hex(text);
}

/**
 * Embeddings (float32) kept by embedder id and content hash, so a text is embedded once per embedder. A
 * different embedder id never matches, which is how changing the embedder invalidates the cache.
 * Pass one to several index builds in the same process to share work; persisted indexes seed one
 * from their stored vectors.
 */
export class EmbeddingCache {
  readonly #vectors = new Map<string, Float32Array>();

  /** The number of stored embeddings. */
  get size(): number {
    return this.#vectors.size;
  }

  /** The stored embedding of the text with this hash, for this embedder (float32, as indexes keep them). */
  get(embedderId: string, hash: string): Float32Array | undefined {
    return this.#vectors.get(key(embedderId, hash));
  }

  /** Stores an embedding, as float32 (a `number[]` is converted). */
  set(embedderId: string, hash: string, embedding: readonly number[] | Float32Array): void {
    this.#vectors.set(
      key(embedderId, hash),
      embedding instanceof Float32Array ? embedding : Float32Array.from(embedding),
    );
  }

  clear(): void {
    this.#vectors.clear();
  }
}

function key(embedderId: string, hash: string): string {
  return `${embedderId}\u0000${hash}`;
}
