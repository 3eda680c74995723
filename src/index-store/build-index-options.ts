import type { Embedder } from "../embedding/types.js";
import type { ChosenReader } from "../reader/formats/registry.js";
import type { ReaderInput, ReadFileResult } from "../reader/formats/types.js";
import type { TextNode } from "../schema/text-node.js";
import type { EmbedProgress } from "./embed-nodes.js";
import type { EmbeddingCache } from "./embedding-cache.js";

/** Anything that turns documents into nodes, such as {@link SentenceSplitter}. */
export interface NodeParser {
  getNodesFromDocuments(documents: readonly TextNode[]): TextNode[];
  /**
   * What the nodes depend on besides the document (`block:1024/200:o200k_base`): a cached index built with another
   * id is built again (`fromDocumentsCached`), so a changed chunk size does not leave old chunks of unchanged
   * files. The built-in splitters have one; a splitter without one is `custom` (changing it goes unnoticed: pass
   * `rebuild`).
   */
  readonly id?: string;
  /**
   * One document's nodes one at a time (optional; `BlockSplitter` has it): index building then yields to the event
   * loop between them, so Ctrl-C and progress get their turn inside a very large document too.
   */
  iterateNodes?(document: TextNode): Iterable<TextNode>;
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
  /**
   * @default new BlockSplitter() (chunkSize 1024, chunkOverlap 200, as in LlamaIndex; chunks follow the sections of
   *   documents read with their structure, and each node carries its `metadata.location`)
   */
  splitter?: NodeParser;
}

/** Options of {@link VectorStoreIndex.fromDocumentsCached}. */
export interface FromDocumentsCachedOptions extends Omit<FromDocumentsOptions, "cache"> {
  /**
   * Called once the documents to split are known (new and changed ones: their count, and their size in bytes, a
   * file's size where it is not read yet), before the first is read (not called when there is none): to size memory or a progress bar by the work ahead.
   */
  onBuildStart?: (plan: { documents: number; bytes: number }) => void;
  /** The folder the index file lives in (`<cacheDir>/ragsynth-index.sqlite`); created when missing. Needed unless `store` is given. */
  cacheDir?: string;
  /**
   * A PostgreSQL URL to keep the index in instead (`postgres://user:password@host:5432/database?schema=name`; the
   * schema, `ragsynth` by default, holds one index): one index shared by many machines. Needs the `pg` package.
   * The password is never printed: the index's location is the URL with `[REDACTED]` in its place.
   */
  store?: string;
  /** Ignore the stored index and embed everything again. @default false */
  rebuild?: boolean;
  /**
   * Worker threads that split the documents, and parse the files of a folder index (the build lists and reads the
   * files and writes the store in this thread): 0 does all here. Only the default splitter, or a `BlockSplitter`
   * with a built-in tokenizer and no function among its options, is run in threads (with any other, no thread
   * starts); only the built-in readers parse in threads. The chunks are the same either way.
   * @default one per core but one, up to 4, from 4 cores, when there is at least 1 MiB of files to split; one on 2 or
   *   3 cores from 16 MiB; none on one core (each thread holds its own tokenizer caches, see BENCHMARKS.md's `threads`
   *   figure)
   */
  threads?: number;
  /**
   * `"background"`: return as soon as the index is built and write it meanwhile (a caller answering a question
   * does not wait for the file); await `index.saved` before the process ends. @default "await" (return once written)
   */
  persist?: "await" | "background";
  /**
   * Reads a document given with its metadata only (an empty `text`, as a listing of files gives it) when its group
   * of chunks is built, so building holds a group's texts at a time rather than every document's. Returns
   * `undefined` when the document could not be read: it is then left out of the index (and its stored rows
   * removed). Documents the index holds unchanged (same size, modification time and reader) are never read.
   *
   * A document the store holds with another size or time but with the SHA-256 of its file's bytes
   * (`getDocumentBytesHash` of the document it was read as) is read with `{ unlessBytesHash }`: return
   * `"same-bytes"` when the file's bytes hash to it, and the store keeps its rows, recording only the new size and
   * time (a file touched, copied or checked out again is not parsed and split again).
   * @default documents are indexed as given
   */
  readDocument?: (
    document: TextNode,
    options?: { unlessBytesHash?: string },
  ) => Promise<TextNode | undefined | "same-bytes">;
}

/** Worker threads a build parses files in (its `SplitPool`), for a `readDocument` that reads with built-in readers. */
export interface FileParser {
  /**
   * What `chosen` (a built-in reader, by the folder index's `readAs`) makes of `input`, parsed in a thread;
   * `undefined` when it must be parsed by the caller. Throws what the reader threw.
   */
  parse(
    readAs: Readonly<Record<string, string>>,
    chosen: ChosenReader,
    input: ReaderInput,
  ): Promise<ReadFileResult | undefined>;
}

/**
 * How a build has a document read: {@link FromDocumentsCachedOptions.readDocument}, told the build's worker threads
 * as `parser` when it has some (a folder index parses its files in them; a caller's `readDocument` ignores it).
 */
export type BuildReadDocument = (
  document: TextNode,
  options?: { unlessBytesHash?: string; parser?: FileParser },
) => Promise<TextNode | undefined | "same-bytes">;

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
  /**
   * Worker threads that split the documents or parsed files (`threads`); 0 or absent when the caller's thread did
   * all (none asked for, or none could start).
   */
  threads?: number;
  /**
   * Why the worker threads the build started did nothing (the error of the first that failed: it could not start,
   * or died), when none split or parsed anything: the build then did all in the caller's thread.
   */
  threadsFailed?: string;
}

/** Progress of writing the BM25 postings: documents written of those to write. */
export interface LexicalProgress {
  added: number;
  total: number;
}
