import { lexicalTerms } from "../analysis/lexical-terms.js";
import { optionsOf } from "../errors/check-options.js";
import { checkString, checkStrings } from "../errors/check-string.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { hashString } from "./fnv1a.js";
import { similarity } from "./similarity.js";
import type { Embedder, EmbedOptions, SimilarityMode } from "./types.js";

const VERSION = "hashing-tfidf-v2";
const MAX_DIMENSIONS = 1 << 24;

/** Options of {@link HashingEmbedder}. */
export interface HashingEmbedderOptions {
  /** Length of every vector. @default 1024 */
  dimensions?: number | undefined;
  /**
   * Documents to learn inverse document frequencies from; see {@link HashingEmbedder.fit}. With
   * `applyIdf: "query"` it may be a function, called on the first query embedding (never when only
   * documents are embedded, or no query is ever embedded).
   */
  corpus?: readonly string[] | (() => readonly string[]) | undefined;
  /** Drop common English, Chinese and Japanese function words. @default true */
  stopWords?: boolean | undefined;
  /** Strip English plural endings before hashing. @default true */
  stemming?: boolean | undefined;
  /**
   * Where a fitted IDF applies. `"query"` weights only queries, so document vectors (and the id, the cache
   * key) do not depend on the corpus: a corpus that changes re-embeds only what changed, while rare query
   * words still count for more than common ones.
   * @default "both"
   */
  applyIdf?: "both" | "query" | undefined;
}

/**
 * The offline default embedder: lexical, hashed TF-IDF. It matches **words, not meaning**: "car" and
 * "automobile" share nothing. Use a neural embedder when synonyms matter.
 *
 * Words come from `Intl.Segmenter`, plus character bigrams for Chinese and Japanese runs. Each term
 * is hashed (FNV-1a) into one of `dimensions` slots with a hash-derived sign, which makes collisions
 * cancel out on average instead of adding up — but they still happen: two distinct terms share a slot with
 * probability 1/`dimensions`, so over a real vocabulary almost every term shares its slot. Measured on the
 * bench's small corpus (295 npm docs, 19,291 distinct terms): at 1024 slots every term shares its slot with
 * ~18 others (100% of terms collide; 99% at 4096, 26% at 65,536), and `zebra`, `branch` and `v2.9.1` all
 * land in slot 333. That is why retrieval uses BM25 over exact terms by default; this embedder remains for
 * the sentence optimizer and as `retrievalMode: "dense"`. Weights are `(1 + ln tf) · idf`, with
 * `idf = ln((1 + N) / (1 + df)) + 1` after {@link HashingEmbedder.fit} and `1` before (for queries only
 * with `applyIdf: "query"`); vectors are L2-normalised. Deterministic, synchronous underneath, and dependency-free.
 *
 * @example
 * const embedder = new HashingEmbedder().fit(sentences);
 * const [vector] = await embedder.getTextEmbeddings(["Paris is the capital of France."]);
 */
export class HashingEmbedder implements Embedder {
  /** `hashing-tfidf-v2:<dimensions>`, plus `:nostop`/`:nostem` and `:idf-<hash>` when fitted. */
  readonly id: string;
  readonly dimensions: number;
  /** Documents the IDF was fitted on; 0 when not fitted (or not yet, for a lazy corpus). */
  documentCount: number;
  readonly #options: HashingEmbedderOptions;
  #documentFrequencies: Map<string, number> | undefined;
  #lazyCorpus: (() => readonly string[]) | undefined;

  constructor(options: HashingEmbedderOptions = {}) {
    const {
      dimensions = 1024,
      corpus,
      stopWords = true,
      stemming = true,
      applyIdf = "both",
    } = optionsOf("options", options, "{ dimensions?, corpus?, stopWords?, stemming?, applyIdf? }");
    if (applyIdf !== "both" && applyIdf !== "query") {
      throw new InvalidArgumentError({
        parameter: "applyIdf",
        value: applyIdf,
        expected: 'be "both" or "query"',
      });
    }
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
      throw new InvalidArgumentError({
        parameter: "dimensions",
        value: dimensions,
        expected: `be an integer between 1 and ${MAX_DIMENSIONS}`,
      });
    }
    this.dimensions = dimensions;
    this.#options = { dimensions, stopWords, stemming, applyIdf };
    let id = `${VERSION}:${dimensions}${stopWords ? "" : ":nostop"}${stemming ? "" : ":nostem"}`;
    if (corpus === undefined) {
      this.documentCount = 0;
    } else if (typeof corpus === "function") {
      if (applyIdf !== "query") {
        throw new InvalidArgumentError({
          parameter: "corpus",
          value: corpus,
          expected: 'be an array of texts (a function only with applyIdf: "query")',
        });
      }
      this.documentCount = 0;
      this.#lazyCorpus = corpus;
    } else {
      this.#documentFrequencies = countDocumentFrequencies(corpus, this.#options);
      this.documentCount = corpus.length;
      // Query-side IDF leaves document vectors as they were unfitted, so the id (a cache key) stays too.
      if (applyIdf === "both") id += `:idf-${fingerprint(this.#documentFrequencies, corpus.length)}`;
    }
    this.id = id;
  }

  /** Its vectors are hashed words: an index ranks by BM25 by default and stores none of them (see {@link Embedder.lexical}). */
  get lexical(): true {
    return true;
  }

  /** Returns a new embedder with IDF fitted on `corpus`; this one is unchanged (its id stays a valid cache key). */
  fit(corpus: readonly string[]): HashingEmbedder {
    checkStrings("corpus", corpus);
    return new HashingEmbedder({ ...this.#options, corpus });
  }

  /**
   * This embedder with query IDF from `corpus` (called on the first query embedding), when it weights queries
   * only (`applyIdf: "query"`) and has no corpus yet; otherwise this one. Its id, and so its document vectors,
   * stay the same: an index lends its own documents this way (`VectorStoreIndex.queryEmbedModel`).
   */
  withQueryCorpus(corpus: () => readonly string[]): HashingEmbedder {
    if (this.#options.applyIdf !== "query" || this.#documentFrequencies || this.#lazyCorpus) return this;
    return new HashingEmbedder({ ...this.#options, corpus });
  }

  /** Embeds one document text synchronously (with IDF unless `applyIdf` is `"query"`). */
  embed(text: string): number[] {
    checkString("text", text);
    return this.#vector(text, this.#options.applyIdf !== "query");
  }

  #vector(text: string, withIdf: boolean): number[] {
    const counts = new Map<string, number>();
    for (const term of lexicalTerms(text, this.#options)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const vector: number[] = new Array(this.dimensions).fill(0);
    const slots = new Set<number>();
    for (const [term, count] of counts) {
      const hash = hashString(term);
      const weight = (1 + Math.log(count)) * (withIdf ? this.#idf(term) : 1);
      const slot = (hash & 0x7fffffff) % this.dimensions;
      vector[slot] = (vector[slot] as number) + (hash >>> 31 ? -weight : weight);
      slots.add(slot);
    }
    let norm = 0;
    for (const slot of slots) norm += (vector[slot] as number) ** 2;
    if (norm > 0) {
      const scale = 1 / Math.sqrt(norm);
      for (const slot of slots) vector[slot] = (vector[slot] as number) * scale;
    }
    return vector;
  }

  async getTextEmbeddings(texts: string[], options: EmbedOptions = {}): Promise<number[][]> {
    checkStrings("texts", texts);
    options.signal?.throwIfAborted();
    return texts.map((text, index) => this.embed(checkText(text, `texts[${index}]`)));
  }

  async getQueryEmbedding(query: string, options: EmbedOptions = {}): Promise<number[]> {
    options.signal?.throwIfAborted();
    return this.#vector(checkText(query, "query"), true);
  }

  /** Compares two embeddings. @default "cosine" */
  similarity(a: number[], b: number[], mode: SimilarityMode = "cosine"): number {
    return similarity(a, b, mode);
  }

  #idf(term: string): number {
    if (this.#lazyCorpus) {
      const corpus = this.#lazyCorpus();
      this.#lazyCorpus = undefined;
      this.#documentFrequencies = countDocumentFrequencies(corpus, this.#options);
      this.documentCount = corpus.length;
    }
    const frequencies = this.#documentFrequencies;
    if (frequencies === undefined) return 1;
    return Math.log((1 + this.documentCount) / (1 + (frequencies.get(term) ?? 0))) + 1;
  }
}

function checkText(text: unknown, parameter: string): string {
  checkString(parameter, text);
  return text;
}

function countDocumentFrequencies(corpus: readonly string[], options: HashingEmbedderOptions) {
  const frequencies = new Map<string, number>();
  corpus.forEach((document, index) => {
    for (const term of new Set(lexicalTerms(checkText(document, `corpus[${index}]`), options))) {
      frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    }
  });
  return frequencies;
}

// Order-independent (a sum of per-entry hashes), so no sort is needed and equal statistics give equal ids.
function fingerprint(frequencies: Map<string, number>, documentCount: number): string {
  let sum = hashString(`N=${documentCount}`);
  for (const [term, frequency] of frequencies) sum = (sum + hashString(`${term}\u0000${frequency}`)) >>> 0;
  return sum.toString(16).padStart(8, "0");
}
