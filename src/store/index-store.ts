import type { TextNode } from "../schema/text-node.js";
import type { EncodedNode } from "./node-row.js";

/** What a store was built with; a store whose meta differs from the current run's is rebuilt, not mixed. */
export interface StoreMeta {
  /** The embedding model id the vectors (and so the chunks) belong to. */
  embedderId: string;
  /** Whether vectors are stored (false for an embedder cheap to run again, such as HashingEmbedder). */
  storeVectors: boolean;
  /** The version of the analyzer that made the postings (`LEXICAL_ANALYZER`). */
  analyzer: number;
  /** The splitter that made the chunks (`NodeParser.id`: `block:1024/200:o200k_base`); "" for a store from before it was kept. */
  splitter: string;
}

/** One document as the store knows it: its fingerprint (to skip unchanged files) and its chunk count. */
export interface StoredSource {
  id: string;
  /** SHA-256 of the document's text. */
  contentHash: string;
  size?: number;
  lastModifiedAt?: string;
  reader?: string;
  /**
   * SHA-256 of the file's bytes as they were read (hex), when the document came from a file: a file whose size or
   * time changed but whose bytes did not (touched, copied, checked out again, or the same files on another machine)
   * is then known without being parsed or split again. Absent on rows written before it was kept, and from the
   * `sources()` of a store that gives it by `bytesHashes` (SQLite: an ask's freshness check does not need it).
   */
  bytesHash?: string;
  chunkCount: number;
}

/** A document's new size and modification time, for a file whose bytes are the ones the store holds. */
export interface SourceFingerprint {
  id: string;
  size?: number;
  lastModifiedAt?: string;
}

/** A chunk as written: its node (with its location in metadata), its content hash, its analyzed terms, its vector. */
export interface ChunkInput {
  /** The chunk's node, or its id and row value when it was split in a worker thread. */
  node: TextNode | EncodedNode;
  contentHash: string;
  /** The document terms ({@link lexicalDocumentTerms} of the node's embed content). */
  terms: readonly string[];
  /** Its embedding, when the store keeps vectors. */
  embedding?: Float32Array | undefined;
  /** Whether the chunk is or references an image (so a query knows whether images need checking, without a scan). */
  holdsImage: boolean;
}

/** A document's rows: written in place of what the store held for `source.id`. */
export interface SourceEdit {
  /** The document; `null` for chunks that belong to none (an index built from nodes). */
  source: Omit<StoredSource, "chunkCount"> | null;
  chunks: readonly ChunkInput[];
}

/** A stored chunk: `key` orders chunks by insertion (ties rank by it) and is what postings point to. */
export interface StoredChunk {
  key: number;
  node: TextNode;
  contentHash: string;
}

/** The BM25 corpus statistics, exact after every committed edit. */
export interface LexicalStatistics {
  /** Chunks in the store. */
  documents: number;
  /** Sum of the chunks' term counts. */
  totalLength: number;
}

/** A term's postings: chunk keys ascending, with the term's frequency and the chunk's length. */
export interface TermPostings {
  keys: Int32Array | number[];
  frequencies: Int32Array | number[];
  lengths: Int32Array | number[];
}

/** Chunk keys with their scores, best first: what a store that ranks in its engine returns. */
export interface ScoredKey {
  key: number;
  score: number;
}

/**
 * The storage an index lives in: documents with their fingerprints, chunks with their locations, BM25 postings
 * with their statistics, and vectors keyed by content hash. Reads fetch only the rows asked for, and every write
 * method is one transaction, so a reader (another process too) sees the state before it or after it. Every method
 * returns a promise: an embedded store (SQLite) answers at once, a server (PostgreSQL) over the network.
 */
export interface IndexStore {
  /** Where the store lives (a file path, or a URL without its password). */
  readonly location: string;
  meta(): Promise<StoreMeta | undefined>;
  /**
   * Runs `read` on one snapshot: every read inside (the awaits in between too) sees the same committed state,
   * whatever writers do meanwhile. Do not write inside it.
   */
  read<T>(read: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` (which may await) as one write transaction: other processes keep reading the last committed state
   * until it commits, and a failure or a killed process leaves that state. Writes inside join it.
   */
  replacing<T>(work: () => Promise<T>): Promise<T>;
  /** Empties the store (keeping the vectors when `keepVectors`) and records `meta`. */
  reset(meta: StoreMeta, options?: { keepVectors?: boolean }): Promise<void>;
  /** The documents, in their recorded order. */
  sources(): Promise<StoredSource[]>;
  /** The node ids of one document's chunks, in order. */
  sourceNodeIds(id: string): Promise<string[]>;
  /**
   * Optional: the bytes hashes of these documents (those that have one), for a store whose `sources()` leaves them
   * out.
   */
  bytesHashes?(ids: readonly string[]): Promise<Map<string, string>>;
  /** Optional: every document's node ids in one read (a server saves a round trip per document). */
  nodeIdsBySource?(): Promise<Map<string, string[]>>;
  /**
   * Optional: a number that moves with every change to the documents' rows (`sources()`), by any writer; the same
   * number means the same rows. Undefined when the store keeps none.
   */
  sourcesVersion?(): Promise<number | undefined>;
  /**
   * Optional: the rows of these documents (ids not stored are left out), in the order asked: an edit of a few files
   * reads their rows only.
   */
  sourcesOf?(ids: readonly string[]): Promise<StoredSource[]>;
  /**
   * Optional: the {@link sourcesVersion} now, when every change to the documents' rows since they had `version` was
   * a write of this store object (its write transactions one after another, none rolled back); undefined when
   * another writer may have changed them meanwhile, or the store keeps no version.
   */
  sourcesVersionAfterOwnWrites?(version: number): Promise<number | undefined>;
  /** Writes each edit in place of its document's rows, and removes the documents `removed` names, in one transaction. */
  write(edits: readonly SourceEdit[], removed?: readonly string[]): Promise<void>;
  /** Records the documents' order (ids not stored are ignored). */
  setOrder(ids: readonly string[]): Promise<void>;
  /**
   * Records the size and modification time of documents whose bytes are unchanged (ids not stored are ignored), in
   * one transaction; no chunk, posting or vector is touched.
   */
  setFingerprints(fingerprints: readonly SourceFingerprint[]): Promise<void>;
  /**
   * Optional: after a write of many rows, brings the engine's statistics and visibility information up to date
   * (PostgreSQL: `VACUUM (ANALYZE)`), so queries plan and read as on settled tables (a BM25 query from the postings'
   * index alone). Call outside any transaction; failures are not reported (the engine settles in its own time).
   */
  settle?(): Promise<void>;
  statistics(): Promise<LexicalStatistics>;
  /** The document frequency of each term the store holds (terms it does not hold are absent). */
  documentFrequencies(terms: readonly string[]): Promise<Map<string, number>>;
  postings(term: string): Promise<TermPostings | undefined>;
  /**
   * Optional: a term's postings in the chunks `keys` (ascending) names only, keys ascending (chunks without the term
   * left out), reading only the rows that hold them: a common term's postings where a BM25 query needs them. A
   * store without it is read whole ({@link IndexStore.postings}).
   */
  postingsAt?(term: string, keys: ArrayLike<number>): Promise<TermPostings>;
  /**
   * Optional: the `topK` chunks with the highest positive BM25 score for these (distinct) query terms, computed by
   * the engine (one query over the terms' postings) with the same formula, statistics and tie order (key) as
   * `createStoreLexicalSearch` computes from {@link IndexStore.postings}. A store without it is ranked in JS.
   */
  lexicalTopK?(
    terms: readonly string[],
    options: { topK: number; k1: number; b: number },
  ): Promise<ScoredKey[]>;
  /** The chunks with these keys (missing keys are skipped), in the order asked. */
  chunks(keys: readonly number[]): Promise<StoredChunk[]>;
  /** The chunk with this node id. */
  chunkByNodeId(id: string): Promise<StoredChunk | undefined>;
  /** Every chunk in insertion order, in batches (a full read: for `nodes` and dense search without vectors). */
  allChunks(batchSize?: number): AsyncIterable<StoredChunk[]>;
  /** Stored vectors of these content hashes. */
  vectors(contentHashes: readonly string[]): Promise<Map<string, Float32Array>>;
  /** Every chunk key with its vector, in batches (exact dense search). */
  allVectors(batchSize?: number): AsyncIterable<{ keys: number[]; vectors: Float32Array[] }>;
  /**
   * Optional: the `topK` chunks whose vectors are most cosine-similar to `query`, searched by the store (pgvector
   * on PostgreSQL; sign codes narrowing to candidates scored exactly on SQLite); `undefined` when the store cannot
   * (no extension, no codes), and the caller scans {@link IndexStore.allVectors}.
   */
  denseTopK?(query: Float32Array, topK: number): Promise<ScoredKey[] | undefined>;
  /** Whether any chunk is or references an image. */
  hasImages(): Promise<boolean>;
  /** What a user should know about this store, when anything (PostgreSQL without pgvector: dense search in JS). */
  readonly notice?: string | undefined;
  /** A synchronous view of the same store, for an embedded engine (SQLite); absent on a server. */
  readonly sync?: SyncIndexStore;
  close(): Promise<void>;
}

/**
 * A store whose reads and writes are synchronous (SQLite through better-sqlite3): the methods of
 * {@link IndexStore} without their promises, made one by `asyncIndexStore`.
 */
export interface SyncIndexStore {
  /** Where the store lives (a file path, or a redacted URL). */
  readonly location: string;
  meta(): StoreMeta | undefined;
  /** Runs `read` on one snapshot: every read inside sees the same committed state, whatever writers do meanwhile. */
  read<T>(read: () => T): T;
  /**
   * Begins a read snapshot unless a transaction is open (then reads join it); returns what ends what it began.
   * For snapshots whose reads await in between (the async {@link IndexStore.read}).
   */
  openSnapshot(): () => void;
  /**
   * Runs `work` (which may await) as one write transaction: other processes keep reading the last committed state
   * until it commits, and a failure or a killed process leaves that state. Writes inside join it.
   */
  replacing<T>(work: () => Promise<T>): Promise<T>;
  /** Empties the store (keeping the vectors when `keepVectors`) and records `meta`. */
  reset(meta: StoreMeta, options?: { keepVectors?: boolean }): void;
  /** The documents, in their recorded order. */
  sources(): StoredSource[];
  /** The node ids of one document's chunks, in order. */
  sourceNodeIds(id: string): string[];
  /** As {@link IndexStore.bytesHashes}. */
  bytesHashes?(ids: readonly string[]): Map<string, string>;
  /** As {@link IndexStore.sourcesVersion}. */
  sourcesVersion?(): number | undefined;
  /** As {@link IndexStore.sourcesOf}. */
  sourcesOf?(ids: readonly string[]): StoredSource[];
  /** As {@link IndexStore.sourcesVersionAfterOwnWrites}. */
  sourcesVersionAfterOwnWrites?(version: number): number | undefined;
  /** Writes each edit in place of its document's rows, and removes the documents `removed` names, in one transaction. */
  write(edits: readonly SourceEdit[], removed?: readonly string[]): void;
  /** Records the documents' order (ids not stored are ignored). */
  setOrder(ids: readonly string[]): void;
  /** As {@link IndexStore.setFingerprints}. */
  setFingerprints(fingerprints: readonly SourceFingerprint[]): void;
  statistics(): LexicalStatistics;
  /** The document frequency of each term the store holds (terms it does not hold are absent). */
  documentFrequencies(terms: readonly string[]): Map<string, number>;
  postings(term: string): TermPostings | undefined;
  /** As {@link IndexStore.postingsAt}. */
  postingsAt(term: string, keys: ArrayLike<number>): TermPostings;
  /** The chunks with these keys (missing keys are skipped), in the order asked. */
  chunks(keys: readonly number[]): StoredChunk[];
  /** The chunk with this node id. */
  chunkByNodeId(id: string): StoredChunk | undefined;
  /** Every chunk in insertion order, in batches (a full read: for `nodes` and dense search without vectors). */
  allChunks(batchSize?: number): Iterable<StoredChunk[]>;
  /** Stored vectors of these content hashes. */
  vectors(contentHashes: readonly string[]): Map<string, Float32Array>;
  /** Every chunk key with its vector, in batches (exact dense search). */
  allVectors(batchSize?: number): Iterable<{ keys: number[]; vectors: Float32Array[] }>;
  /** Optional: {@link IndexStore.denseTopK}. */
  denseTopK?(query: Float32Array, topK: number): ScoredKey[] | undefined;
  /** Whether any chunk is or references an image. */
  hasImages(): boolean;
  close(): void;
}
