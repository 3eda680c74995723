import { hashString } from "../embedding/fnv1a.js";
import { similarity } from "../embedding/similarity.js";
import type { Embedder, EmbedOptions, SimilarityMode } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

/** One recorded call of a {@link MockEmbedding}. */
export interface MockEmbeddingCall {
  method: "getTextEmbeddings" | "getQueryEmbedding";
  /** The texts of the call: the whole batch, or the one query. */
  texts: string[];
}

/** Options of {@link MockEmbedding}. */
export interface MockEmbeddingOptions {
  /** A lookup table from text to vector (`{ hello: [1, 0, 0, 0, 0] }`). Without one, every text gets a derived vector. */
  embeddings?: Readonly<Record<string, readonly number[]>> | undefined;
  /**
   * What an unknown text gets when a table is set: `"derived"` for a deterministic text-derived vector,
   * or a function. Without a fallback an unknown text throws.
   */
  fallback?: "derived" | ((text: string) => number[]) | undefined;
  /** Length of derived vectors. @default the table's vector length, or 8 */
  dimensions?: number | undefined;
  /** @default "mock-embedding" */
  id?: string | undefined;
}

/**
 * A fake embedder for tests: a lookup table, or deterministic vectors derived from each text's hash
 * (unit length, equal texts give equal vectors). Records every call in {@link MockEmbedding.calls},
 * so tests can count batches; `similarity` is cosine unless a mode is passed.
 * @example
 * const embedder = new MockEmbedding({ embeddings: { hello: [1, 0], world: [0, 1] } });
 */
export class MockEmbedding implements Embedder {
  readonly id: string;
  /** Every call so far, in order. */
  readonly calls: MockEmbeddingCall[] = [];
  readonly #table: ReadonlyMap<string, readonly number[]> | undefined;
  readonly #fallback: ((text: string) => number[]) | undefined;

  constructor(options: MockEmbeddingOptions = {}) {
    const {
      embeddings,
      fallback,
      dimensions,
      id = "mock-embedding",
    } = optionsOf("options", options, "{ embeddings?, fallback?, dimensions?, id? }");
    this.id = id;
    const size = dimensions ?? Object.values(embeddings ?? {})[0]?.length ?? 8;
    checkInteger("dimensions", size, 1);
    this.#table = embeddings ? new Map(Object.entries(embeddings)) : undefined;
    const derive = (text: string) => derivedVector(text, size);
    this.#fallback = embeddings === undefined || fallback === "derived" ? derive : fallback;
  }

  /** The number of `getTextEmbeddings` calls (batches) so far. */
  get batchCount(): number {
    return this.calls.filter((call) => call.method === "getTextEmbeddings").length;
  }

  async getTextEmbeddings(texts: string[], options: EmbedOptions = {}): Promise<number[][]> {
    this.calls.push({ method: "getTextEmbeddings", texts: [...texts] });
    options.signal?.throwIfAborted();
    return texts.map((text) => this.#embed(text));
  }

  async getQueryEmbedding(query: string, options: EmbedOptions = {}): Promise<number[]> {
    this.calls.push({ method: "getQueryEmbedding", texts: [query] });
    options.signal?.throwIfAborted();
    return this.#embed(query);
  }

  /** Compares two embeddings. @default "cosine" */
  similarity(a: number[], b: number[], mode: SimilarityMode = "cosine"): number {
    return similarity(a, b, mode);
  }

  #embed(text: string): number[] {
    const known = this.#table?.get(text);
    if (known) return [...known];
    if (this.#fallback) return this.#fallback(text);
    const names = [...(this.#table?.keys() ?? [])].map((name) => JSON.stringify(name));
    throw new InvalidArgumentError({
      parameter: "text",
      value: text,
      expected: `be a key of the mock's embeddings table (${names.join(", ")})`,
      hint: 'Add the text to `embeddings`, or set `fallback: "derived"`.',
    });
  }
}

// A small seeded PRNG (mulberry32) so the vector depends on the text alone.
function derivedVector(text: string, dimensions: number): number[] {
  let state = hashString(text);
  const vector: number[] = [];
  for (let i = 0; i < dimensions; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    vector.push(((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 31 - 1);
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return norm > 0 ? vector.map((value) => value / norm) : vector;
}
