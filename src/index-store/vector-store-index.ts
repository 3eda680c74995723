import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { LexicalIndex } from "../lexical/lexical-index.js";
import type { AsQueryEngineOptions, RetrieverQueryEngineOptions } from "../query-engine/engine-options.js";
import type { Retriever } from "../query-engine/retriever.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import type { TextNode } from "../schema/text-node.js";
import { buildFromDocuments, embedOrDefer, type StoredBuildInput } from "./build-index.js";
import type {
  BuildIndexOptions,
  FromDocumentsCachedOptions,
  FromDocumentsOptions,
  IndexBuildStats,
} from "./build-index-options.js";
import { checkEmbedModel, storesVectors, withDefaultEmbedModel } from "./check-embed-model.js";
import type { IndexEntry } from "./embed-nodes.js";
import { EmbeddingCache } from "./embedding-cache.js";
import { type AsRetrieverOptions, buildLexicalIndex, createIndexRetriever } from "./index-retriever.js";
import type { IndexSource } from "./index-source.js";
import { diffSources, sameSources } from "./index-sources.js";
import { readIndexFile, writeIndexFile } from "./persistence.js";
import { queryEmbedModel } from "./query-embed-model.js";
import { storedLexical, updateLexical } from "./stored-lexical.js";
import { readCachedStats, readStoredSources } from "./stored-sources.js";

/**
 * An in-memory vector index: nodes with their embeddings, searched by cosine similarity. Build it
 * from documents or nodes, persist it to a folder, load it back, and get a {@link Retriever}.
 * Embeddings are cached by embedding model id and the SHA-256 of each node's embed content, so unchanged
 * text is never embedded twice (see {@link VectorStoreIndex.fromDocumentsCached}).
 * @example
 * const index = await VectorStoreIndex.fromDocuments(documents, { embedModel });
 * const nodes = await index.asRetriever({ similarityTopK: 3 }).retrieve({ query: "What is RAG?" });
 */
export class VectorStoreIndex {
  readonly embedModel: Embedder;
  /** The documents the nodes came from; empty for an index built from nodes. */
  readonly sources: readonly IndexSource[];
  /** What the build that made this index cost. */
  readonly buildStats: IndexBuildStats;
  readonly #entries: readonly IndexEntry[];
  #lexical: LexicalIndex | undefined;
  #queryEmbedModel: Embedder | undefined;
  #saved: Promise<string | undefined> = Promise.resolve(undefined);

  private constructor(
    embedModel: Embedder,
    entries: IndexEntry[],
    sources: IndexSource[],
    stats: IndexBuildStats,
    lexical?: LexicalIndex,
  ) {
    this.embedModel = embedModel;
    this.#entries = entries;
    this.sources = sources;
    this.buildStats = stats;
    this.#lexical = lexical;
  }

  /**
   * The embedder queries are embedded with: `embedModel`, or for the offline `HashingEmbedder` with
   * `applyIdf: "query"` and no corpus, that embedder weighting query words by this index's documents (IDF).
   */
  get queryEmbedModel(): Embedder {
    this.#queryEmbedModel ??= queryEmbedModel(this.embedModel, () => this.nodes, this.sources);
    return this.#queryEmbedModel;
  }

  /** The indexed nodes, in insertion order. */
  get nodes(): TextNode[] {
    return this.#entries.map((entry) => entry.node);
  }

  /** Splits documents into nodes (SentenceSplitter by default) and embeds them. */
  static async fromDocuments(
    documents: readonly TextNode[],
    options: FromDocumentsOptions = {},
  ): Promise<VectorStoreIndex> {
    const resolved = withDefaultEmbedModel("documents", documents, options);
    return VectorStoreIndex.#build(documents, resolved, { cache: resolved.cache ?? new EmbeddingCache() });
  }

  /** Embeds nodes as they are, without splitting. */
  static async fromNodes(
    nodes: readonly TextNode[],
    given: BuildIndexOptions = {},
  ): Promise<VectorStoreIndex> {
    const options = withDefaultEmbedModel("nodes", nodes, given);
    const embedded = await embedOrDefer(nodes, options, options.cache ?? new EmbeddingCache());
    const stats = {
      chunks: nodes.length,
      embedded: embedded.embedded,
      reused: embedded.reused,
      sources: diffSources([], []),
    };
    return new VectorStoreIndex(options.embedModel, embedded.entries, [], stats);
  }

  /**
   * Builds from documents, reusing the index persisted in `cacheDir`: nodes whose embed content is
   * unchanged keep their stored embedding, so unchanged files cost no embedding calls and a changed
   * file costs only its changed chunks. The result is persisted back (atomically). A stored index
   * from a different embedding model is ignored and replaced.
   * @throws RagsynthError `index_load` when the stored file is corrupt or of another format version;
   *   IndexSaveError `index_save` when the result cannot be written back.
   */
  static async fromDocumentsCached(
    documents: readonly TextNode[],
    { cacheDir, rebuild = false, persist = "await", ...given }: FromDocumentsCachedOptions,
  ): Promise<VectorStoreIndex> {
    if (persist !== "await" && persist !== "background") {
      throw new InvalidArgumentError({
        parameter: "persist",
        value: persist,
        expected: 'be "await" (return once the index is written) or "background" (write it while you use it)',
      });
    }
    const options = withDefaultEmbedModel("documents", documents, given);
    const stored = rebuild ? undefined : await readIndexFile(cacheDir, options.signal);
    const cache = new EmbeddingCache();
    const sameEmbedder = stored?.embedderId === options.embedModel.id;
    if (stored && sameEmbedder) {
      for (const entry of stored.entries) {
        if (entry.embedding) cache.set(stored.embedderId, entry.contentHash, entry.embedding);
      }
    }
    const index = await VectorStoreIndex.#build(documents, options, {
      cache,
      ...(stored ? { previous: stored.sources } : {}),
      ...(stored && sameEmbedder ? { previousEntries: stored.entries } : {}),
      ...(stored && !sameEmbedder ? { previousEmbedModelId: stored.embedderId } : {}),
    });
    // BM25 statistics are kept with the index and brought up to date, never recomputed on a query.
    const previousLexical = sameEmbedder ? storedLexical(stored) : undefined;
    index.#lexical = await updateLexical(
      previousLexical && stored ? { index: previousLexical, entries: stored.entries } : undefined,
      index.#entries,
      { signal: options.signal, onProgress: options.onLexicalProgress },
    );
    // Nothing is written when nothing changed: same embedModel, same files (size, time and content).
    const unchanged =
      previousLexical !== undefined &&
      stored !== undefined &&
      sameEmbedder &&
      stored.storeVectors === storesVectors(options.embedModel) &&
      sameSources(stored.sources, index.sources);
    if (!unchanged) {
      const writing = index.persist(cacheDir, options.signal ? { signal: options.signal } : {});
      if (persist === "background") {
        // Handled here, so a failure before anyone awaits `saved` is not an unhandled rejection; `saved` still
        // rejects with it.
        writing.catch(() => {});
        index.#saved = writing;
      } else {
        index.#saved = Promise.resolve(await writing);
      }
    }
    return index;
  }

  /**
   * What {@link VectorStoreIndex.fromDocumentsCached} would report when the index in `cacheDir` is up to date
   * with `documents` (same embedding model, same files in the same order with the same size and modification time),
   * found from the index file's first line only: neither the nodes nor the BM25 index are read. `undefined`
   * when something changed (or there is no index), so building would do work.
   * @throws RagsynthError `index_load` when the stored file is corrupt or of another format version
   */
  static async cachedStats(
    documents: readonly TextNode[],
    { cacheDir, embedModel, signal }: { cacheDir: string; embedModel?: Embedder; signal?: AbortSignal },
  ): Promise<IndexBuildStats | undefined> {
    return readCachedStats(documents, { cacheDir, embedModel, signal });
  }

  /**
   * The documents (ids, sizes, modification times, hashes) of the index in `cacheDir` that
   * {@link VectorStoreIndex.fromDocumentsCached} would build on with `embedModel`, from the file's first line only;
   * `undefined` when there is none, or it was built with another embedding model. A document with the same size and
   * modification time as its stored source is not read again: `readDocuments`' `skipRead` can leave its text out.
   * @throws RagsynthError `index_load` when the stored file is corrupt or of another format version
   */
  static async storedSources(
    cacheDir: string,
    { embedModel, signal }: { embedModel?: Embedder; signal?: AbortSignal },
  ): Promise<IndexSource[] | undefined> {
    return readStoredSources(cacheDir, { embedModel, signal });
  }

  /**
   * Loads an index persisted with {@link VectorStoreIndex.persist}.
   * @throws RagsynthError `index_load` when there is no index in `dir`, the file is corrupt or of another
   * version, or it was built with a different embedding model (its vectors would not compare with the queries').
   */
  static async load(
    dir: string,
    options: { embedModel: Embedder; signal?: AbortSignal },
  ): Promise<VectorStoreIndex> {
    const { embedModel, signal } = options ?? {};
    checkEmbedModel(embedModel, embedModel === undefined && "embedder" in (options ?? {}));
    const stored = await readIndexFile(dir, signal);
    if (!stored) {
      throw new RagsynthError({
        code: "index_load",
        message: `No index in ${dir}. Build one with VectorStoreIndex.fromDocuments(...) and index.persist("${dir}"), or use fromDocumentsCached.`,
      });
    }
    if (stored.embedderId !== embedModel.id) {
      throw new RagsynthError({
        code: "index_load",
        message: `The index in ${dir} was built with the embedding model "${stored.embedderId}", but got "${embedModel.id}"; their vectors do not compare. Pass the same embedModel, or rebuild with VectorStoreIndex.fromDocumentsCached (which re-embeds).`,
      });
    }
    const stats = {
      chunks: stored.entries.length,
      embedded: 0,
      reused: stored.entries.length,
      sources: diffSources([], []),
    };
    return new VectorStoreIndex(embedModel, stored.entries, stored.sources, stats, storedLexical(stored));
  }

  /**
   * Settles when the write {@link VectorStoreIndex.fromDocumentsCached} started is done: the file's path, or
   * `undefined` when nothing was written (nothing changed, or the index was not built by it). With
   * `persist: "background"` await it before the process ends: it rejects with the write's IndexSaveError (or the
   * AbortError of its signal).
   */
  get saved(): Promise<string | undefined> {
    return this.#saved;
  }

  /**
   * Writes the index to `<dir>/ragsynth-index.json.gz` atomically (temporary file, then rename), creating `dir`
   * when missing. Returns the file's path.
   * @throws IndexSaveError (`index_save`, with the file's `path`) when the folder or file cannot be written
   */
  async persist(dir: string, { signal }: { signal?: AbortSignal } = {}): Promise<string> {
    return writeIndexFile(
      dir,
      {
        embedderId: this.embedModel.id,
        sources: [...this.sources],
        entries: [...this.#entries],
        storeVectors: storesVectors(this.embedModel),
        lexical: this.lexicalIndex,
      },
      signal,
    );
  }

  /**
   * The BM25 index over the nodes (their embed content: text and `file_path`), built on first use.
   * `toJSON()` it to keep it beside the index; it holds node ids, not texts.
   */
  get lexicalIndex(): LexicalIndex {
    this.#lexical ??= buildLexicalIndex(this.nodes);
    return this.#lexical;
  }

  /**
   * A retriever over this index: the `similarityTopK` best nodes, best first, ranked by BM25 (`"lexical"`,
   * the default with the offline HashingEmbedder), by the embeddings (`"dense"`), or by both fused
   * (`"hybrid"`, the default with any other embedModel). See {@link AsRetrieverOptions}.
   */
  asRetriever(options: AsRetrieverOptions = {}): Retriever {
    return createIndexRetriever({
      entries: this.#entries,
      embedModel: this.queryEmbedModel,
      lexical: () => this.lexicalIndex,
      options,
    });
  }

  /**
   * A {@link RetrieverQueryEngine} over {@link VectorStoreIndex.asRetriever}: the engine's options
   * (a synthesizer, or `llm` and `responseMode`; `nodePostprocessors`; `onEvent`) plus `similarityTopK`
   * and `retrievalMode`.
   * @example index.asQueryEngine({ llm, responseMode: "tree_summarize", similarityTopK: 3 })
   */
  asQueryEngine<T = unknown>(
    options: AsQueryEngineOptions<T> = {} as AsQueryEngineOptions<T>,
  ): RetrieverQueryEngine<T> {
    const { similarityTopK, retrievalMode, ...engineOptions } = options ?? {};
    const retriever = this.asRetriever({
      ...(similarityTopK === undefined ? {} : { similarityTopK }),
      ...(retrievalMode === undefined ? {} : { retrievalMode }),
    });
    return new RetrieverQueryEngine<T>({ ...engineOptions, retriever } as RetrieverQueryEngineOptions<T>);
  }

  static async #build(
    documents: readonly TextNode[],
    options: FromDocumentsOptions & { embedModel: Embedder },
    stored: StoredBuildInput,
  ): Promise<VectorStoreIndex> {
    const { entries, sources, stats } = await buildFromDocuments(documents, options, stored);
    return new VectorStoreIndex(options.embedModel, entries, sources, stats);
  }
}
