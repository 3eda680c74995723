import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { RagsynthError } from "../errors/ragsynth-error.js";
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
import { SCHEMA, SQLITE_STORE_VERSION } from "./sqlite-schema.js";
import { SqliteStatements } from "./sqlite-statements.js";
import { storeMetaOf } from "./store-meta.js";

/** The file an index is kept in, inside its folder: one SQLite database (WAL mode), readable with `sqlite3`. */
export const SQLITE_INDEX_FILE = "ragsynth-index.sqlite";

// better-sqlite3 is CommonJS with a native addon: required, so the CLI's CommonJS bundle loads it as it is.
const require = createRequire(import.meta.url);

/**
 * Opens (creating when missing) the SQLite index in `dir`. WAL mode: readers never wait for a writer and see the
 * last committed state; a second writer waits up to `busyTimeoutMs` for the first. A file of another layout version
 * is emptied (the store is rebuilt from the documents).
 * @throws RagsynthError `index_load` when the file is not a SQLite database (or a damaged one); the file system's or
 *   SQLite's own error when the folder or file cannot be created or opened
 */
export function openSqliteStore(dir: string, { busyTimeoutMs = 30_000 } = {}): SqliteIndexStore {
  const file = path.join(dir, SQLITE_INDEX_FILE);
  let db: BetterSqlite3.Database;
  try {
    mkdirSync(dir, { recursive: true });
    const Database = require("better-sqlite3") as typeof BetterSqlite3;
    db = new Database(file, { timeout: busyTimeoutMs });
    useWal(db, busyTimeoutMs);
    db.pragma("synchronous = NORMAL");
    prepareLayout(db);
  } catch (error) {
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
  return new SqliteIndexStore(db, file);
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

function prepareLayout(db: BetterSqlite3.Database): void {
  const version = db.pragma("user_version", { simple: true }) as number;
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
}

/** {@link IndexStore} on one SQLite file through better-sqlite3 (synchronous, so a read is a few microseconds). */
export class SqliteIndexStore implements SyncIndexStore {
  readonly location: string;
  readonly #db: BetterSqlite3.Database;
  readonly #sql: SqliteStatements;

  constructor(db: BetterSqlite3.Database, file: string) {
    this.#db = db;
    this.location = file;
    this.#sql = new SqliteStatements(db);
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
    return this.#db.inTransaction ? read() : this.#db.transaction(read).deferred();
  }

  openSnapshot(): () => void {
    if (this.#db.inTransaction) return () => {};
    this.#db.exec("BEGIN DEFERRED");
    // WAL takes a deferred transaction's snapshot at its first read: read now, so the snapshot is this moment's.
    this.#sql.stats.get();
    return () => {
      if (this.#db.inTransaction) this.#db.exec("COMMIT");
    };
  }

  reset(meta: StoreMeta, { keepVectors = false } = {}): void {
    this.#db
      .transaction(() => {
        for (const table of ["sources", "chunks", "terms", "postings", "meta"])
          this.#db.exec(`DELETE FROM ${table}`);
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
    return this.#sql.sourceNodeIds.pluck().all(id) as string[];
  }

  write(edits: readonly SourceEdit[], removed: readonly string[] = []): void {
    this.#db
      .transaction(() => {
        const freed = new Set<string>();
        for (const id of removed) this.#removeSource(id, freed);
        for (const edit of edits) {
          if (edit.source) this.#removeSource(edit.source.id, freed);
          this.#insert(edit);
        }
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
      const df = this.#sql.termFrequency.pluck().get(term) as number | undefined;
      if (df !== undefined) frequencies.set(term, df);
    }
    return frequencies;
  }

  postings(term: string): TermPostings | undefined {
    const rows = this.#sql.postings.raw().all(term) as [number, number, number][];
    if (rows.length === 0) return undefined;
    const keys = new Int32Array(rows.length);
    const frequencies = new Array<number>(rows.length);
    const lengths = new Array<number>(rows.length);
    rows.forEach(([key, tf, length], index) => {
      keys[index] = key;
      frequencies[index] = tf;
      lengths[index] = length;
    });
    return { keys, frequencies, lengths };
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

  #chunk(row: ChunkRow): StoredChunk {
    return { key: row.key, node: decodeNode(row.node, this.location), contentHash: row.content_hash };
  }

  #removeSource(id: string, freed: Set<string>): void {
    for (const chunk of this.#sql.sourceChunks.all(id) as { key: number; content_hash: string }[]) {
      this.#removeChunk(chunk.key);
      freed.add(chunk.content_hash);
    }
    this.#sql.deleteSource.run(id);
  }

  #removeChunk(key: number): void {
    const length = this.#sql.chunkLength.pluck().get(key) as number | undefined;
    if (length === undefined) return;
    this.#sql.decrementFrequencies.run(key);
    this.#sql.dropUnusedTerms.run(key);
    this.#sql.deletePostings.run(key);
    this.#sql.deleteChunk.run(key);
    this.#sql.addStats.run(-1, -length);
  }

  #insert({ source, chunks }: SourceEdit): void {
    if (source === null) {
      for (const [position, chunk] of chunks.entries()) this.#insertChunk(null, position, chunk);
      return;
    }
    this.#sql.insertSource.run(
      source.id,
      source.contentHash,
      source.size ?? null,
      source.lastModifiedAt ?? null,
      source.reader ?? null,
      chunks.length,
    );
    for (const [position, chunk] of chunks.entries()) this.#insertChunk(source.id, position, chunk);
  }

  #insertChunk(
    sourceId: string | null,
    position: number,
    { node, contentHash, terms, embedding, holdsImage }: ChunkInput,
  ): void {
    // A node id is one chunk: one that another document held (not expected: ids are `<file>#<n>`) moves here.
    const existing = this.#sql.chunkKeyByNodeId.pluck().get(node.id) as number | undefined;
    if (existing !== undefined) this.#removeChunk(existing);
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
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, tf] of counts) {
      const termId = this.#sql.addTerm.pluck().get(term) as number;
      this.#sql.insertPosting.run(termId, key, tf, terms.length);
    }
    if (embedding) this.#sql.insertVector.run(contentHash, toBlob(embedding));
    this.#sql.addStats.run(1, terms.length);
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
