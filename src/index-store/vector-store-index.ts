import path from "node:path";
import type { Embedder } from "../embedding/types.js";
import { checkObject, optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { AsQueryEngineOptions, RetrieverQueryEngineOptions } from "../query-engine/engine-options.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import { holdsImage } from "../reader/image-references.js";
import type { LexicalIndex } from "../retrieval/lexical-index.js";
import type { Retriever } from "../retrieval/retriever.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexStore, SyncIndexStore } from "../store/index-store.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import { SQLITE_INDEX_FILE } from "../store/open-sqlite-store.js";
import { buildFromDocuments, embedOrDefer, type StoredBuildInput } from "./build-index.js";
import type {
  BuildIndexOptions,
  FromDocumentsCachedOptions,
  FromDocumentsOptions,
  IndexBuildStats,
  NodeParser,
} from "./build-index-options.js";
import { buildCachedStore, writeIndexTo } from "./cached-build.js";
import { checkEmbedModel, storesVectors, withDefaultEmbedModel } from "./check-embed-model.js";
import type { IndexEntry } from "./embed-nodes.js";
import { EmbeddingCache } from "./embedding-cache.js";
import {
  type AsRetrieverOptions,
  buildLexicalIndex,
  createIndexRetriever,
  defaultRetrievalMode,
} from "./index-retriever.js";
import type { IndexSource } from "./index-source.js";
import { diffSources } from "./index-sources.js";
import { queryEmbedModel } from "./query-embed-model.js";
import { splitterIdOf, type UpdateStoreOptions } from "./store-build.js";
import {
  createStoreRetriever,
  readEntries,
  readEntriesNow,
  readSources,
  readSourcesNow,
} from "./store-index.js";
import { openSavedStore, storeLabel, storeLocation } from "./store-location.js";
import { readCachedStats, readStoredSources } from "./stored-sources.js";

/**
 * An index on a store already open and checked to be built with `embedModel` (a folder's freshness check opened it
 * and read its fingerprints): {@link VectorStoreIndex.load} without opening the store again. Not exported from the
 * package. The index closes the store.
 */
export let indexOnStore: (store: IndexStore, embedModel: Embedder) => Promise<VectorStoreIndex>;

/**
 * The body of {@link VectorStoreIndex.fromDocumentsCached} once its options are checked, building on `held`: the
 * store at `cacheDir` already open (a folder's freshness check read its rows), or `undefined` to open it. The build
 * owns `held` (`buildCachedStore` closes it when it fails). Not exported from the package.
 */
export let buildOnStore: (
  documents: readonly TextNode[],
  cacheDir: string,
  options: UpdateStoreOptions & { rebuild: boolean },
  held: IndexStore | undefined,
) => Promise<VectorStoreIndex>;

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
  /** What the build that made this index cost. */
  readonly buildStats: IndexBuildStats;
  // In memory, or read from the store on first use (a full read: only `nodes`, `sources`, `lexicalIndex` need it).
  #entries: readonly IndexEntry[] | undefined;
  #sources: IndexSource[] | undefined;
  readonly #store: IndexStore | undefined;
  #hasImages: boolean | undefined;
  #lexical: LexicalIndex | undefined;
  #queryEmbedModel: Embedder | undefined;
  #saved: Promise<string | undefined> = Promise.resolve(undefined);
  /** The splitter that made its nodes (`splitterIdOf`), recorded by `persist`; "" when not known (`fromNodes`, a loaded store). */
  #splitterId = "";

  private constructor(
    embedModel: Embedder,
    content: { entries: IndexEntry[]; sources: IndexSource[] } | { store: IndexStore; hasImages: boolean },
    stats: IndexBuildStats,
  ) {
    // Private in TypeScript only: a plain JavaScript `new VectorStoreIndex()` is told how to get an index.
    checkObject(
      "new VectorStoreIndex()",
      content,
      "not be called: the constructor is private",
      "Build an index with VectorStoreIndex.fromDocuments(documents) or fromDocumentsCached, or open one with VectorStoreIndex.load(cacheDir).",
    );
    this.embedModel = embedModel;
    if ("store" in content) {
      this.#store = content.store;
      this.#hasImages = content.hasImages;
    } else {
      this.#entries = content.entries;
      this.#sources = content.sources;
    }
    this.buildStats = stats;
  }

  /**
   * The embedder queries are embedded with: `embedModel`, or for the offline `HashingEmbedder` with
   * `applyIdf: "query"` and no corpus, that embedder weighting query words by this index's documents (IDF).
   * The documents are read only when a query is embedded that way.
   */
  get queryEmbedModel(): Embedder {
    this.#queryEmbedModel ??= queryEmbedModel(
      this.embedModel,
      () => this.nodes,
      () => this.sources,
    );
    return this.#queryEmbedModel;
  }

  /**
   * The documents the nodes came from; empty for an index built from nodes. An index on a server store
   * (PostgreSQL) has them only once {@link VectorStoreIndex.readSources} has read them.
   * @throws RagsynthError `invalid_argument` on a server store not yet read
   */
  get sources(): readonly IndexSource[] {
    this.#sources ??= this.#store ? readSourcesNow(this.#syncStore("sources", "readSources")) : [];
    return this.#sources;
  }

  /**
   * The indexed nodes, in insertion order. For an index in a store this reads every chunk; on a server store
   * (PostgreSQL) use {@link VectorStoreIndex.readNodes}.
   * @throws RagsynthError `invalid_argument` on a server store not yet read
   */
  get nodes(): TextNode[] {
    return this.#allEntries().map((entry) => entry.node);
  }

  /** The indexed nodes, in insertion order, read from any store (a full read). */
  async readNodes(): Promise<TextNode[]> {
    this.#entries ??= this.#store ? await readEntries(this.#store) : [];
    return this.nodes;
  }

  /** The documents the nodes came from, read from any store. */
  async readSources(): Promise<readonly IndexSource[]> {
    this.#sources ??= this.#store ? await readSources(this.#store) : [];
    return this.#sources;
  }

  /** Whether some node is an image or references one; a stored index answers from one row, read when opened. */
  hasImages(): boolean {
    return this.#hasImages ?? this.nodes.some(holdsImage);
  }

  #allEntries(): readonly IndexEntry[] {
    this.#entries ??= this.#store ? readEntriesNow(this.#syncStore("nodes", "readNodes")) : [];
    return this.#entries;
  }

  #syncStore(getter: string, method: string): SyncIndexStore {
    const sync = (this.#store as IndexStore).sync;
    if (sync) return sync;
    throw new RagsynthError({
      code: "invalid_argument",
      message: `The index in ${(this.#store as IndexStore).location} is on a server: \`${getter}\` cannot read it synchronously. Await index.${method}() first (it reads every row once).`,
    });
  }

  /** Splits documents into nodes (SentenceSplitter by default) and embeds them. */
  static async fromDocuments(
    documents: readonly TextNode[],
    options: FromDocumentsOptions = {},
  ): Promise<VectorStoreIndex> {
    const resolved = withDefaultEmbedModel("documents", documents, options);
    const index = await VectorStoreIndex.#build(documents, resolved, {
      cache: resolved.cache ?? new EmbeddingCache(),
    });
    index.#splitterId = splitterIdOf(options.splitter);
    return index;
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
    return new VectorStoreIndex(options.embedModel, { entries: embedded.entries, sources: [] }, stats);
  }

  /**
   * Builds from documents into the SQLite index in `cacheDir` (`ragsynth-index.sqlite`), in place: an unchanged
   * file (same size, modification time and reader) is not touched, a changed, added or removed file's rows are
   * rewritten in one transaction, and a chunk whose embed content the index already has a vector for is not
   * embedded again. A stored index from a different embedding model (or analyzer) is emptied and rebuilt; one of
   * the former format (`ragsynth-index.json.gz`) is an `index_load` error that `isOtherIndexVersion` recognizes
   * (rebuild with `rebuild: true`, which also removes the old files). The returned index reads only the rows a query
   * needs. `persist` is accepted for compatibility: the rows are written before this returns either way.
   * @throws RagsynthError `index_load` when the stored file is not a readable index;
   *   IndexSaveError `index_save` when the folder or file cannot be written.
   */
  static async fromDocumentsCached(
    documents: readonly TextNode[],
    options: FromDocumentsCachedOptions,
  ): Promise<VectorStoreIndex> {
    const {
      cacheDir: folder,
      store: storeUrl,
      rebuild = false,
      persist = "await",
      ...given
    } = optionsOf("options", options, "{ cacheDir (or store), embedModel?, splitter?, … }");
    const cacheDir = storeLocation(storeUrl, folder);
    if (persist !== "await" && persist !== "background") {
      throw new InvalidArgumentError({
        parameter: "persist",
        value: persist,
        expected: 'be "await" (return once the index is written) or "background" (write it while you use it)',
      });
    }
    const resolved = withDefaultEmbedModel("documents", documents, given);
    return VectorStoreIndex.#buildOnStore(documents, cacheDir, { ...resolved, rebuild }, undefined);
  }

  static async #buildOnStore(
    documents: readonly TextNode[],
    cacheDir: string,
    options: UpdateStoreOptions & { rebuild: boolean },
    held: IndexStore | undefined,
  ): Promise<VectorStoreIndex> {
    const { store, stats, wrote, hasImages } = await buildCachedStore(documents, cacheDir, options, held);
    const index = new VectorStoreIndex(options.embedModel, { store, hasImages }, stats);
    // Written in place before returning (each document's rows in their own transaction); `saved` names the file.
    index.#saved = Promise.resolve(wrote ? store.location : undefined);
    return index;
  }

  /**
   * What {@link VectorStoreIndex.fromDocumentsCached} would report when the index in `cacheDir` is up to date
   * with `documents` (same embedding model and splitter, same files in the same order with the same size and modification time),
   * found from the store's `sources` rows only: neither the nodes nor the BM25 postings are read. `undefined`
   * when something changed (or there is no index), so building would do work.
   * @throws RagsynthError `index_load` when the stored file is corrupt or of another format version
   */
  static async cachedStats(
    documents: readonly TextNode[],
    options: {
      cacheDir?: string;
      store?: string;
      embedModel?: Embedder;
      splitter?: NodeParser;
      signal?: AbortSignal;
    },
  ): Promise<IndexBuildStats | undefined> {
    const { cacheDir, store, embedModel, splitter, signal } = optionsOf(
      "options",
      options,
      "{ cacheDir (or store), embedModel?, splitter?, signal? }",
    );
    return readCachedStats(documents, {
      cacheDir: storeLocation(store, cacheDir),
      embedModel,
      splitter,
      signal,
    });
  }

  /**
   * The documents (ids, sizes, modification times, hashes) of the index in `cacheDir` that
   * {@link VectorStoreIndex.fromDocumentsCached} would build on with `embedModel`, from the store's `sources` rows;
   * `undefined` when there is none, or it was built with another embedding model or splitter (`splitter`: the one
   * the build will use, default `BlockSplitter`'s). A document with the same size and
   * modification time as its stored source is not read again: `readDocuments`' `skipRead` can leave its text out.
   * @throws RagsynthError `index_load` when the stored file is corrupt or of another format version
   */
  static async storedSources(
    cacheDir: string,
    options: { embedModel?: Embedder; splitter?: NodeParser; signal?: AbortSignal } = {},
  ): Promise<IndexSource[] | undefined> {
    const { embedModel, splitter, signal } = optionsOf(
      "options",
      options,
      "{ embedModel?, splitter?, signal? }",
    );
    return readStoredSources(storeLocation(undefined, cacheDir), { embedModel, splitter, signal });
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
    signal?.throwIfAborted();
    return VectorStoreIndex.#onStore(await openSavedStore(dir, embedModel), embedModel);
  }

  /** The index that queries `store` (open, built with `embedModel`); the index closes it. */
  static async #onStore(store: IndexStore, embedModel: Embedder): Promise<VectorStoreIndex> {
    try {
      const chunks = (await store.statistics()).documents;
      const stats = { chunks, embedded: 0, reused: chunks, sources: diffSources([], []) };
      return new VectorStoreIndex(embedModel, { store, hasImages: await store.hasImages() }, stats);
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  static {
    indexOnStore = (store, embedModel) => VectorStoreIndex.#onStore(store, embedModel);
    buildOnStore = (documents, cacheDir, options, held) =>
      VectorStoreIndex.#buildOnStore(documents, cacheDir, options, held);
  }

  /**
   * What the store says a user should know, for an index whose queries it serves: a PostgreSQL store without
   * pgvector (while the embedding model's vectors are stored) ranks dense queries by reading every vector.
   */
  get storeNotice(): string | undefined {
    return this.#store && storesVectors(this.embedModel) ? this.#store.notice : undefined;
  }

  /**
   * Closes the store the index reads (a SQLite file, a PostgreSQL pool); an index in memory has nothing to close.
   * A PostgreSQL pool's idle connections do not keep the process alive, but closing ends them at once.
   */
  async close(): Promise<void> {
    await this.#store?.close();
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
   * Writes the index to `dir`: a folder (its SQLite file `ragsynth-index.sqlite`, replaced whole; the folder is made
   * when missing) or a PostgreSQL URL. Returns the index's location (the file's path, or the URL without its password).
   * @throws IndexSaveError (`index_save`, with the file's `path`) when the folder or file cannot be written
   */
  async persist(dir: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    if (typeof dir !== "string" || dir === "") {
      throw new InvalidArgumentError({
        parameter: "dir",
        value: dir,
        expected: "be the folder to write the index in (or a PostgreSQL URL)",
      });
    }
    const { signal } = optionsOf("options", options, "{ signal? }");
    signal?.throwIfAborted();
    const target = isPostgresUrl(dir) ? storeLabel(dir) : path.join(path.resolve(dir), SQLITE_INDEX_FILE);
    if (this.#store?.location === target) return target;
    await this.readNodes();
    const entries = this.#allEntries();
    const sources = await this.readSources();
    const splitter = this.#splitterId || ((await this.#store?.meta())?.splitter ?? "");
    return writeIndexTo(dir, { embedModel: this.embedModel, entries, sources, splitter });
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
  asRetriever(given: AsRetrieverOptions = {}): Retriever {
    const options = optionsOf(
      "options",
      given,
      '{ similarityTopK?, retrievalMode?: "lexical" | "dense" | "hybrid" }',
    );
    const store = this.#store;
    if (store && this.#entries === undefined) {
      const retriever = createStoreRetriever(store, this.queryEmbedModel, options);
      const mode = options.retrievalMode ?? defaultRetrievalMode(this.queryEmbedModel);
      // BM25 embeds no query: it reads only the query's postings and the chunks it returns.
      if (store.sync || this.queryEmbedModel === this.embedModel || mode === "lexical") return retriever;
      // Queries weighted by this index's documents (HashingEmbedder's query IDF) need them read first.
      return {
        retrieve: async (query) => {
          await this.readNodes();
          await this.readSources();
          return retriever.retrieve(query);
        },
      };
    }
    return createIndexRetriever({
      entries: this.#allEntries(),
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
    const { similarityTopK, retrievalMode, ...engineOptions } = optionsOf(
      "options",
      options,
      "{ llm, similarityTopK?, retrievalMode?, responseMode?, … }",
    );
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
    return new VectorStoreIndex(options.embedModel, { entries, sources }, stats);
  }
}
