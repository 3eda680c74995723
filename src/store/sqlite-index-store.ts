import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { lexicalDocumentTerms } from "../lexical/lexical-tokens.js";
import { MetadataMode, type TextNode } from "../schema/text-node.js";
import type {
  ChunkInput,
  LexicalStatistics,
  SourceEdit,
  StoredChunk,
  StoredSource,
  StoreMeta,
  SyncIndexStore,
  TermPostings,
} from "./index-store.js";
import { damaged, decodeNode, encodeNode } from "./node-row.js";
import { PostingsBatch, readPostings } from "./sqlite-postings.js";
import { SCHEMA, SQLITE_STORE_VERSION } from "./sqlite-schema.js";
import { SqliteStatements } from "./sqlite-statements.js";
import { storeMetaOf } from "./store-meta.js";

/**
 * Marks the `index_load` error of an index written in another format or layout (`isOtherIndexVersion`): a cache
 * can simply be rebuilt (the CLI does, with a notice), while a damaged index of this version should be looked at.
 */
export const OTHER_INDEX_VERSION = Symbol.for("ragsynth.index.otherVersion");

/** The terms the index build writes for a chunk: {@link lexicalDocumentTerms} of its embed content. */
function storeTerms(node: TextNode): string[] {
  return lexicalDocumentTerms(node.getContent(MetadataMode.EMBED));
}

/** The file an index is kept in, inside its folder: one SQLite database (WAL mode), readable with `sqlite3`. */
export const SQLITE_INDEX_FILE = "ragsynth-index.sqlite";

// better-sqlite3 is CommonJS with a native addon: required, so the CLI's CommonJS bundle loads it as it is.
const require = createRequire(import.meta.url);

/**
 * Opens (creating when missing) the SQLite index in `dir`. WAL mode: readers never wait for a writer and see the
 * last committed state; a second writer waits up to `busyTimeoutMs` for the first. A file of another layout version
 * (`SQLITE_STORE_VERSION`) is emptied when `replaceOtherLayout` (a rebuild), else refused with an error that
 * `OTHER_INDEX_VERSION` marks.
 * @throws RagsynthError `index_load` when the file is not a SQLite database (or a damaged one), or one of another
 *   layout; the file system's or SQLite's own error when the folder or file cannot be created or opened
 */
export function openSqliteStore(
  dir: string,
  {
    busyTimeoutMs = 30_000,
    replaceOtherLayout = false,
    analyze = storeTerms,
    _internal = {},
  }: {
    busyTimeoutMs?: number;
    /** Whether a file of another layout version is emptied (to be rebuilt) rather than refused. */
    replaceOtherLayout?: boolean;
    /**
     * The terms of a stored chunk, as they were given when it was written (`ChunkInput.terms`): a removed chunk's
     * postings are found by analyzing its node again.
     * @default the lexical analyzer over the node's embed content (what the index build writes)
     */
    analyze?: (node: TextNode) => readonly string[];
    /** Test seam: the `BLOCK_POSTINGS` of this connection's writes (small, so tests cross block boundaries). */
    _internal?: { blockPostings?: number };
  } = {},
): SqliteIndexStore {
  const file = path.join(dir, SQLITE_INDEX_FILE);
  let db: BetterSqlite3.Database;
  try {
    mkdirSync(dir, { recursive: true });
    const Database = require("better-sqlite3") as typeof BetterSqlite3;
    db = new Database(file, { timeout: busyTimeoutMs });
    useWal(db, busyTimeoutMs);
    db.pragma("synchronous = NORMAL");
    const other = prepareLayout(db, replaceOtherLayout);
    if (other !== undefined) {
      db.close();
      throw Object.assign(
        new RagsynthError({
          code: "index_load",
          message: `The index ${file} was written by another ragsynth (index layout ${other}, this one reads ${SQLITE_STORE_VERSION}). Rebuild it (fromDocumentsCached with rebuild, or ragsynth index --rebuild).`,
        }),
        { [OTHER_INDEX_VERSION]: `sqlite-${other}` },
      );
    }
  } catch (error) {
    if (RagsynthError.isInstance(error)) throw error;
    const code = (error as { code?: unknown }).code;
    // A file that is not a SQLite database (or a damaged one) is an index to look at or rebuild; any other failure
    // (a folder that cannot be written) is the caller's to report as it reads or writes.
    if (code !== "SQLITE_NOTADB" && code !== "SQLITE_CORRUPT") throw error;
    throw new RagsynthError({
      code: "index_load",
      message: `The index ${file} is not a readable SQLite database (${(error as Error).message}). Delete it to rebuild the index from the documents.`,
      cause: error,
    });
  }
  return new SqliteIndexStore(db, file, analyze, _internal.blockPostings);
}

/**
 * Switches the file to WAL (once per file; later opens find it set). Switching needs the file to itself, and SQLite
 * answers SQLITE_BUSY at once, without its busy handler, while another process creates or writes the same new
 * index (two asks started together on one folder): so it is retried, with short waits, up to the busy timeout.
 */
function useWal(db: BetterSqlite3.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      if (db.pragma("journal_mode", { simple: true }) !== "wal") db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}

/** Creates the tables of a new file; the layout version of a file of another one that is kept (not replaced). */
function prepareLayout(db: BetterSqlite3.Database, replaceOtherLayout: boolean): number | undefined {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version !== 0 && version !== SQLITE_STORE_VERSION && !replaceOtherLayout) return version;
  if (version !== SQLITE_STORE_VERSION) {
    db.transaction(() => {
      if (version !== 0) {
        for (const { name } of db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
          .all() as { name: string }[])
          db.exec(`DROP TABLE IF EXISTS "${name.replaceAll('"', '""')}"`);
      }
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SQLITE_STORE_VERSION}`);
    }).immediate();
  }
  return undefined;
}

/** {@link IndexStore} on one SQLite file through better-sqlite3 (synchronous, so a read is a few microseconds). */
export class SqliteIndexStore implements SyncIndexStore {
  readonly location: string;
  readonly #db: BetterSqlite3.Database;
  readonly #sql: SqliteStatements;
  readonly #blockPostings: number | undefined;
  readonly #analyze: (node: TextNode) => readonly string[];
  /** What the current `read` snapshot has read (and may read again): nothing outlives the snapshot. */
  #snapshot: { nodeIds?: Map<string, { count: number; ids: string | null }> } | undefined;

  constructor(
    db: BetterSqlite3.Database,
    file: string,
    analyze: (node: TextNode) => readonly string[],
    blockPostings?: number,
  ) {
    this.#db = db;
    this.#analyze = analyze;
    this.location = file;
    this.#sql = new SqliteStatements(db);
    this.#blockPostings = blockPostings;
  }

  meta(): StoreMeta | undefined {
    const rows = this.#sql.meta.all() as { key: string; value: string }[];
    return storeMetaOf(new Map(rows.map((row) => [row.key, row.value])));
  }

  async replacing<T>(work: () => Promise<T>): Promise<T> {
    // Writes inside (each a `transaction()`) become savepoints of this one; a second writer waits (busy timeout).
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = await work();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.#db.inTransaction) this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  read<T>(read: () => T): T {
    // A deferred transaction: WAL gives it one snapshot from its first read to its end; nested calls join it.
    if (this.#db.inTransaction) return read();
    this.#snapshot = {};
    try {
      return this.#db.transaction(read).deferred();
    } finally {
      this.#snapshot = undefined;
    }
  }

  openSnapshot(): () => void {
    if (this.#db.inTransaction) return () => {};
    this.#db.exec("BEGIN DEFERRED");
    // WAL takes a deferred transaction's snapshot at its first read: read now, so the snapshot is this moment's.
    this.#sql.stats.get();
    this.#snapshot = {};
    return () => {
      this.#snapshot = undefined;
      if (this.#db.inTransaction) this.#db.exec("COMMIT");
    };
  }

  reset(meta: StoreMeta, { keepVectors = false } = {}): void {
    this.#db
      .transaction(() => {
        for (const table of ["sources", "chunks", "postings", "meta"]) this.#db.exec(`DELETE FROM ${table}`);
        if (!keepVectors) this.#db.exec("DELETE FROM vectors");
        this.#db.exec("UPDATE stats SET documents = 0, total_length = 0");
        this.#sql.setMeta.run("embedderId", meta.embedderId);
        this.#sql.setMeta.run("storeVectors", meta.storeVectors ? "1" : "0");
        this.#sql.setMeta.run("analyzer", String(meta.analyzer));
      })
      .immediate();
  }

  sources(): StoredSource[] {
    return (this.#sql.sources.all() as SourceRow[]).map((row) => ({
      id: row.id,
      contentHash: row.content_hash,
      ...(row.size === null ? {} : { size: row.size }),
      ...(row.last_modified_at === null ? {} : { lastModifiedAt: row.last_modified_at }),
      ...(row.reader === null ? {} : { reader: row.reader }),
      chunkCount: row.chunk_count,
    }));
  }

  sourceNodeIds(id: string): string[] {
    // Inside one `read` snapshot (reading every document's ids), the first call reads every sources row at once.
    if (!this.#snapshot) {
      const row = this.#sql.sourceNodeIds.raw().get(id) as [number, string | null] | undefined;
      return row ? this.#nodeIds(id, row[0], row[1]) : [];
    }
    if (!this.#snapshot.nodeIds) {
      const rows = this.#sql.allSourceNodeIds.raw().all() as [string, number, string | null][];
      this.#snapshot.nodeIds = new Map(rows.map(([source, count, ids]) => [source, { count, ids }]));
    }
    const row = this.#snapshot.nodeIds.get(id);
    return row ? this.#nodeIds(id, row.count, row.ids) : [];
  }

  write(edits: readonly SourceEdit[], removed: readonly string[] = []): void {
    this.#db
      .transaction(() => {
        const freed = new Set<string>();
        const postings = new PostingsBatch(this.#sql, this.location, this.#blockPostings);
        for (const id of removed) this.#removeSource(id, freed, postings);
        for (const edit of edits) {
          if (edit.source) this.#removeSource(edit.source.id, freed, postings);
          this.#insert(edit, postings);
        }
        postings.flush();
        for (const hash of freed) this.#sql.dropUnusedVector.run(hash, hash);
      })
      .immediate();
  }

  setOrder(ids: readonly string[]): void {
    this.#db
      .transaction(() => {
        for (const [position, id] of ids.entries()) this.#sql.setPosition.run(position, id);
      })
      .immediate();
  }

  statistics(): LexicalStatistics {
    const row = this.#sql.stats.get() as { documents: number; total_length: number };
    return { documents: row.documents, totalLength: row.total_length };
  }

  documentFrequencies(terms: readonly string[]): Map<string, number> {
    const frequencies = new Map<string, number>();
    for (const term of terms) {
      const df = this.#sql.termFrequency.pluck().get(term) as number | null;
      if (df !== null) frequencies.set(term, df);
    }
    return frequencies;
  }

  postings(term: string): TermPostings | undefined {
    return readPostings(this.#sql.postingBlocks.pluck().all(term) as Buffer[], this.location);
  }

  chunks(keys: readonly number[]): StoredChunk[] {
    const found: StoredChunk[] = [];
    for (const key of keys) {
      const row = this.#sql.chunkByKey.get(key) as ChunkRow | undefined;
      if (row) found.push(this.#chunk(row));
    }
    return found;
  }

  chunkByNodeId(id: string): StoredChunk | undefined {
    const row = this.#sql.chunkByNodeId.get(id) as ChunkRow | undefined;
    return row && this.#chunk(row);
  }

  *allChunks(batchSize = 1024): Iterable<StoredChunk[]> {
    let after = 0;
    for (;;) {
      const rows = this.#sql.chunksAfter.all(after, batchSize) as ChunkRow[];
      if (rows.length === 0) return;
      after = (rows.at(-1) as ChunkRow).key;
      yield rows.map((row) => this.#chunk(row));
    }
  }

  vectors(contentHashes: readonly string[]): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    for (const hash of contentHashes) {
      const blob = this.#sql.vector.pluck().get(hash) as Buffer | undefined;
      if (blob) found.set(hash, toFloat32(blob));
    }
    return found;
  }

  *allVectors(batchSize = 8192): Iterable<{ keys: number[]; vectors: Float32Array[] }> {
    let after = 0;
    for (;;) {
      const rows = this.#sql.vectorsAfter.raw().all(after, batchSize) as [number, Buffer][];
      if (rows.length === 0) return;
      after = (rows.at(-1) as [number, Buffer])[0];
      yield { keys: rows.map((row) => row[0]), vectors: rows.map((row) => toFloat32(row[1])) };
    }
  }

  hasImages(): boolean {
    return this.#sql.anyImage.get() !== undefined;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  /** A sources row's node ids: its `node_ids` JSON, or `<id>#0` … when NULL. */
  #nodeIds(id: string, count: number, stored: string | null): string[] {
    if (stored === null) return Array.from({ length: count }, (_, index) => `${id}#${index}`);
    let ids: unknown;
    try {
      ids = JSON.parse(stored);
    } catch (error) {
      throw damaged(this.location, "a document whose node ids are not valid JSON", error);
    }
    if (!Array.isArray(ids) || !ids.every((item) => typeof item === "string"))
      throw damaged(this.location, "a document whose node ids are not a list of strings");
    return ids;
  }

  #chunk(row: ChunkRow): StoredChunk {
    return { key: row.key, node: decodeNode(row.node, this.location), contentHash: row.content_hash };
  }

  #removeSource(id: string, freed: Set<string>, postings: PostingsBatch): void {
    for (const chunk of this.#sql.sourceChunks.all(id) as { key: number; content_hash: string }[]) {
      this.#removeChunk(chunk.key, postings);
      freed.add(chunk.content_hash);
    }
    this.#sql.deleteSource.run(id);
  }

  #removeChunk(key: number, postings: PostingsBatch): void {
    const row = this.#sql.chunkRemoval.get(key) as { length: number; node: Buffer | string } | undefined;
    if (row === undefined) return;
    postings.remove(key, row.length, () => this.#analyze(decodeNode(row.node, this.location)));
    this.#sql.deleteChunk.run(key);
  }

  #insert({ source, chunks }: SourceEdit, postings: PostingsBatch): void {
    if (source === null) {
      for (const [position, chunk] of chunks.entries()) this.#insertChunk(null, position, chunk, postings);
      return;
    }
    this.#sql.insertSource.run(
      source.id,
      source.contentHash,
      source.size ?? null,
      source.lastModifiedAt ?? null,
      source.reader ?? null,
      chunks.length,
      chunks.every(({ node }, index) => node.id === `${source.id}#${index}`)
        ? null
        : JSON.stringify(chunks.map(({ node }) => node.id)),
    );
    for (const [position, chunk] of chunks.entries()) this.#insertChunk(source.id, position, chunk, postings);
  }

  #insertChunk(
    sourceId: string | null,
    position: number,
    { node, contentHash, terms, embedding, holdsImage }: ChunkInput,
    postings: PostingsBatch,
  ): void {
    // A node id is one chunk: one that another document held (not expected: ids are `<file>#<n>`) moves here.
    const existing = this.#sql.chunkKeyByNodeId.pluck().get(node.id) as number | undefined;
    if (existing !== undefined) {
      const from = this.#sql.chunkSource.pluck().get(existing) as string | null;
      this.#removeChunk(existing, postings);
      if (from !== null && from !== sourceId) {
        const ids = this.#sql.chunkNodeIdsOfSource.pluck().all(from) as string[];
        this.#sql.setSourceNodeIds.run(ids.length, JSON.stringify(ids), from);
      }
    }
    const key = Number(
      this.#sql.insertChunk.run(
        node.id,
        sourceId,
        position,
        contentHash,
        terms.length,
        holdsImage ? 1 : 0,
        encodeNode(node),
      ).lastInsertRowid,
    );
    postings.add(key, terms);
    if (embedding) this.#sql.insertVector.run(contentHash, toBlob(embedding));
  }
}

interface SourceRow {
  id: string;
  content_hash: string;
  size: number | null;
  last_modified_at: string | null;
  reader: string | null;
  chunk_count: number;
}

interface ChunkRow {
  key: number;
  node: Buffer | string;
  content_hash: string;
}

function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function toFloat32(blob: Buffer): Float32Array {
  if (blob.byteLength % 4 !== 0)
    throw damaged("store", "a vector whose size is not a whole number of floats");
  // A copy: the blob's bytes need not be 4-byte aligned.
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}
