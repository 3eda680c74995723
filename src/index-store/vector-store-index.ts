import { setImmediate as nextTurn } from "node:timers/promises";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import type { Embedder } from "../embedding/types.js";
import { checkInteger } from "../errors/check-integer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { LexicalIndex } from "../lexical/lexical-index.js";
import type { AsQueryEngineOptions, RetrieverQueryEngineOptions } from "../query-engine/engine-options.js";
import type { Retriever } from "../query-engine/retriever.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import { MetadataMode, type TextNode } from "../schema/text-node.js";
import { SentenceSplitter } from "../splitter/sentence-splitter.js";
import { type EmbedProgress, embedNodes, type IndexEntry } from "./embed-nodes.js";
import { contentHash, EmbeddingCache } from "./embedding-cache.js";
import { type AsRetrieverOptions, buildLexicalIndex, createIndexRetriever } from "./index-retriever.js";
import { type IndexSource, readIndexFile, readIndexHeader, writeIndexFile } from "./persistence.js";
import { type LexicalProgress, storedLexical, updateLexical } from "./stored-lexical.js";

/** Anything that turns documents into nodes, such as {@link SentenceSplitter}. */
export interface NodeParser {
  getNodesFromDocuments(documents: readonly TextNode[]): TextNode[];
}

/** Options shared by every way of building a {@link VectorStoreIndex}. */
export interface BuildIndexOptions {
  /** How texts become vectors. @default new HashingEmbedder() (offline, lexical; as the optimizer's default) */
  embedModel?: Embedder | undefined;
  /** Embeddings already computed (by embedding model id and content hash); new ones are added to it. @default a new, empty cache */
  cache?: EmbeddingCache;
  /** Most texts per `getTextEmbeddings` call; the embedding model may batch further. @default 256 */
  embedBatchSize?: number;
  /** Called before the first batch and after each one. */
  onProgress?: (progress: EmbedProgress) => void;
  /** Called as documents are split (or found unchanged), at most every ~50 ms and after the last. */
  onSplitProgress?: (progress: { split: number; total: number }) => void;
  /** Called as nodes enter the BM25 index (fromDocumentsCached), at most every ~50 ms and after the last. */
  onLexicalProgress?: (progress: LexicalProgress) => void;
  signal?: AbortSignal;
}

/** Options of {@link VectorStoreIndex.fromDocuments}. */
export interface FromDocumentsOptions extends BuildIndexOptions {
  /** @default new SentenceSplitter() (chunkSize 1024, chunkOverlap 200, as in LlamaIndex) */
  splitter?: NodeParser;
}

/** Options of {@link VectorStoreIndex.fromDocumentsCached}. */
export interface FromDocumentsCachedOptions extends Omit<FromDocumentsOptions, "cache"> {
  /** Where the index file lives (`<cacheDir>/ragsynth-index.json.gz`); created when missing. */
  cacheDir: string;
  /** Ignore the stored index and embed everything again. @default false */
  rebuild?: boolean;
}

/** What building an index cost, and how the documents compare with the stored index. */
export interface IndexBuildStats {
  /** Nodes in the index. */
  chunks: number;
  /** Distinct texts sent to the embedding model. */
  embedded: number;
  /** Nodes whose embedding came from the cache. */
  reused: number;
  /** Document ids by how they compare with the stored index (all `added` without one). */
  sources: { added: string[]; changed: string[]; unchanged: string[]; removed: string[] };
  /** The stored index's embedding model id, when it differed from the current one (so nothing was reused). */
  previousEmbedModelId?: string;
}

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
      sources: diff([], []),
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
    { cacheDir, rebuild = false, ...given }: FromDocumentsCachedOptions,
  ): Promise<VectorStoreIndex> {
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
    if (!unchanged) await index.persist(cacheDir, options.signal ? { signal: options.signal } : {});
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
    const options = withDefaultEmbedModel("documents", documents, { embedModel });
    const sources = await VectorStoreIndex.storedSources(cacheDir, {
      ...options,
      ...(signal ? { signal } : {}),
    });
    if (
      !sources ||
      sources.length !== documents.length ||
      !documents.every((document, index) => {
        const source = sources[index] as IndexSource;
        return source.id === document.id && sameStat(document, source);
      })
    ) {
      return undefined;
    }
    const chunks = sources.reduce((sum, source) => sum + source.nodeIds.length, 0);
    return {
      chunks,
      embedded: 0,
      reused: storesVectors(options.embedModel) ? chunks : 0,
      sources: diff(sources, sources),
    };
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
    const options = withDefaultEmbedModel("documents", [], { embedModel });
    const header = await readIndexHeader(cacheDir, signal);
    const usable =
      header?.lexical === true &&
      header.embedderId === options.embedModel.id &&
      header.storeVectors === storesVectors(options.embedModel);
    return usable ? header.sources : undefined;
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
      sources: diff([], []),
    };
    return new VectorStoreIndex(embedModel, stored.entries, stored.sources, stats, storedLexical(stored));
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
      embedModel: this.embedModel,
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
    {
      cache,
      previous = [],
      previousEntries = [],
      previousEmbedModelId,
    }: {
      cache: EmbeddingCache;
      previous?: readonly IndexSource[];
      previousEntries?: readonly IndexEntry[];
      previousEmbedModelId?: string;
    },
  ): Promise<VectorStoreIndex> {
    const splitter = options.splitter ?? new SentenceSplitter();
    const before = new Map(previous.map((source) => [source.id, source]));
    const storedNodes = new Map(previousEntries.map((entry) => [entry.node.id, entry.node]));
    const nodes: TextNode[] = [];
    const sources: IndexSource[] = [];
    let sliceStart = performance.now();
    for (const [done, document] of documents.entries()) {
      // Slices of ~50 ms: Ctrl-C (an aborted signal) and progress lines get their turn.
      if (performance.now() - sliceStart > 50) {
        options.onSplitProgress?.({ split: done, total: documents.length });
        await nextTurn();
        sliceStart = performance.now();
      }
      options.signal?.throwIfAborted();
      const kept = unchangedNodes(document, before.get(document.id), storedNodes);
      const documentNodes = kept ?? splitter.getNodesFromDocuments([document]);
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
      sources: diff(previous, sources),
      ...(previousEmbedModelId === undefined ? {} : { previousEmbedModelId }),
    };
    return new VectorStoreIndex(options.embedModel, embedded.entries, sources, stats);
  }
}

/**
 * The options with an embedding model (the offline HashingEmbedder when none was given), after checking, for plain
 * JavaScript callers, that the texts are an array.
 */
function withDefaultEmbedModel<Options extends BuildIndexOptions>(
  parameter: string,
  texts: unknown,
  options: Options,
): Options & { embedModel: Embedder } {
  if (!Array.isArray(texts)) {
    throw new InvalidArgumentError({
      parameter,
      value: texts,
      expected:
        "be an array of TextNode (documents: readDocuments(...).documents, or new TextNode({ text }))",
    });
  }
  const given = options ?? ({} as Options);
  if (given.embedModel === undefined && "embedder" in given) throw embedModelError(undefined, true);
  if (given.embedModel !== undefined) checkEmbedModel(given.embedModel);
  return { ...given, embedModel: given.embedModel ?? new HashingEmbedder() };
}

/** A typed error, for plain-JS callers too, when `embedModel` is not a model; names the 0.1 option `embedder`. */
function checkEmbedModel(embedModel: unknown, renamed = false): void {
  const isModel =
    typeof embedModel === "object" &&
    embedModel !== null &&
    typeof (embedModel as Embedder).getTextEmbeddings === "function";
  if (!isModel) throw embedModelError(embedModel, renamed);
}

function embedModelError(embedModel: unknown, renamed: boolean): InvalidArgumentError {
  return new InvalidArgumentError({
    parameter: "embedModel",
    value: embedModel,
    expected: "be an embedding model (an object with getTextEmbeddings and getQueryEmbedding)",
    hint: renamed
      ? "The option `embedder` was renamed to `embedModel` in 0.2.0: pass { embedModel }."
      : "Pass one, such as new HashingEmbedder() or new OpenAILikeEmbedding({ model }).",
  });
}

/**
 * Whether an index keeps its embedding model's vectors on disk. HashingEmbedder vectors are not kept: they cost
 * less to compute again (only for a dense search) than to store, read and check.
 */
function storesVectors(embedModel: Embedder): boolean {
  return !(embedModel instanceof HashingEmbedder);
}

/**
 * The stored nodes of a file that has not changed since it was indexed: same size and modification time,
 * so it is neither hashed nor split again. A touched file (new time, same content) is split again, so its
 * nodes' dates are current, and its vectors come from the cache by content hash.
 */
function unchangedNodes(
  document: TextNode,
  source: IndexSource | undefined,
  storedNodes: ReadonlyMap<string, TextNode>,
): TextNode[] | undefined {
  if (!source || !sameStat(document, source)) return undefined;
  const nodes: TextNode[] = [];
  for (const id of source.nodeIds) {
    const node = storedNodes.get(id);
    if (!node) return undefined;
    nodes.push(node);
  }
  return nodes;
}

/** Whether a document has the size and modification time its stored source was indexed with. */
function sameStat(document: TextNode, source: IndexSource): boolean {
  const { file_size: size, last_modified_at: modified } = document.metadata;
  return (
    source.size !== undefined &&
    source.lastModifiedAt !== undefined &&
    source.size === size &&
    source.lastModifiedAt === modified
  );
}

function sameSources(before: readonly IndexSource[], after: readonly IndexSource[]): boolean {
  if (before.length !== after.length) return false;
  return before.every((source, index) => {
    const other = after[index] as IndexSource;
    return (
      source.id === other.id &&
      source.contentHash === other.contentHash &&
      source.size === other.size &&
      source.lastModifiedAt === other.lastModifiedAt &&
      source.nodeIds.length === other.nodeIds.length &&
      source.nodeIds.every((id, position) => id === other.nodeIds[position])
    );
  });
}

/** Embeds the nodes, or (for an embedding model whose vectors are not stored) leaves that to the first dense search. */
async function embedOrDefer(
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

function describeSource(
  document: TextNode,
  nodes: readonly TextNode[],
  kept: IndexSource | undefined,
): IndexSource {
  const { file_size: size, last_modified_at: lastModifiedAt } = document.metadata;
  return {
    id: document.id,
    // An unchanged file (same size and time) keeps its stored hash: no need to hash it again.
    contentHash: kept?.contentHash ?? contentHash(document.text),
    ...(typeof size === "number" ? { size } : {}),
    ...(typeof lastModifiedAt === "string" ? { lastModifiedAt } : {}),
    nodeIds: nodes.map((node) => node.id),
  };
}

function diff(previous: readonly IndexSource[], current: readonly IndexSource[]): IndexBuildStats["sources"] {
  const before = new Map(previous.map((source) => [source.id, source.contentHash]));
  const now = new Set(current.map((source) => source.id));
  const result: IndexBuildStats["sources"] = { added: [], changed: [], unchanged: [], removed: [] };
  for (const source of current) {
    const hash = before.get(source.id);
    if (hash === undefined) result.added.push(source.id);
    else (hash === source.contentHash ? result.unchanged : result.changed).push(source.id);
  }
  result.removed = previous.filter((source) => !now.has(source.id)).map((source) => source.id);
  return result;
}
