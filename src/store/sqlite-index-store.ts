import type BetterSqlite3 from "better-sqlite3";
import type { TextNode } from "../schema/text-node.js";
import type {
  LexicalStatistics,
  ScoredKey,
  SourceEdit,
  SourceFingerprint,
  StoredChunk,
  StoredSource,
  StoreMeta,
  SyncIndexStore,
  TermPostings,
} from "./index-store.js";
import { OwnWrites } from "./own-writes.js";
import { type CodePage, signCodesFit } from "./sign-codes.js";
import {
  type KeyedBlockRow,
  type PostingsBlockRow,
  readPostings,
  readPostingsAt,
} from "./sqlite-postings.js";
import {
  type ChunkRow,
  chunkOfRow,
  nodeIdsOfRow,
  type SourceRow,
  sourceOfRow,
  sourcesOfRows,
} from "./sqlite-rows.js";
import { SqliteStatements } from "./sqlite-statements.js";
import { readCodePages, searchCodes, toFloat32, VectorCodeStatements } from "./sqlite-vector-codes.js";
import { SqliteWrite } from "./sqlite-writes.js";
import { storeMetaOf } from "./store-meta.js";

/** The most terms a store keeps in memory to skip last-block lookups (~30 MB of strings at most). */
const MAX_KNOWN_TERMS = 1 << 19;

/** {@link IndexStore} on one SQLite file through better-sqlite3 (synchronous, so a read is a few microseconds). */
export class SqliteIndexStore implements SyncIndexStore {
  readonly location: string;
  readonly #db: BetterSqlite3.Database;
  readonly #sql: SqliteStatements;
  readonly #codeSql: VectorCodeStatements;
  /** The codes read by the last dense search, and the `data_version` and own write count they were read at. */
  #codes: { version: string; pages: CodePage[]; words: number } | undefined;
  #writes = 0;
  /**
   * Every term the postings table holds, known while this connection has written every block since it found the
   * table empty: a first build's writes then skip asking for the last block of a term that has none (two thirds of
   * the lookups of a first index). Dropped when another connection commits (`data_version`) or it grows past
   * {@link MAX_KNOWN_TERMS}.
   */
  #termsWithBlocks: { version: number; terms: Set<string> } | undefined;
  readonly #blockPostings: number | undefined;
  readonly #analyze: (node: TextNode) => readonly string[];
  /**
   * What the current `read` snapshot has read (and may read again): nothing outlives the snapshot. `version` is
   * {@link #version} taken before the snapshot began, so what the snapshot reads is that state or a later one.
   */
  #snapshot: { version: string; nodeIds?: Map<string, { count: number; ids: string | null }> } | undefined;
  /**
   * The sources rows and the {@link #version} they were read at, or a later state's: an edit's ask reads them to
   * check the files, then to update the index, ~10 ms a read at 6,000 files. Read again once the version moved.
   */
  #sourcesRead: { version: string; sources: readonly StoredSource[] } | undefined;
  /** This object's write transactions by the rows' versions they began and ended at. */
  readonly #ownWrites = new OwnWrites();

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
    this.#codeSql = new VectorCodeStatements(db);
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
      // The terms written inside are gone again, and those of before are back; so are the rows read inside, and the
      // versions its writes recorded.
      this.#termsWithBlocks = undefined;
      this.#ownWrites.forget();
      this.#writes++;
      throw error;
    }
  }

  read<T>(read: () => T): T {
    // A deferred transaction: WAL gives it one snapshot from its first read to its end; nested calls join it.
    if (this.#db.inTransaction) return read();
    this.#snapshot = { version: this.#version() };
    try {
      return this.#db.transaction(read).deferred();
    } finally {
      this.#snapshot = undefined;
    }
  }

  openSnapshot(): () => void {
    if (this.#db.inTransaction) return () => {};
    const version = this.#version();
    this.#db.exec("BEGIN DEFERRED");
    // WAL takes a deferred transaction's snapshot at its first read: read now, so the snapshot is this moment's.
    this.#sql.stats.get();
    this.#snapshot = { version };
    return () => {
      this.#snapshot = undefined;
      if (this.#db.inTransaction) this.#db.exec("COMMIT");
    };
  }

  reset(meta: StoreMeta, { keepVectors = false } = {}): void {
    this.#db
      .transaction(() =>
        this.#ownWrite(() => {
          this.#writes++;
          this.#termsWithBlocks = undefined;
          for (const table of ["sources", "chunks", "postings", "meta", "vector_codes"])
            this.#db.exec(`DELETE FROM ${table}`);
          if (!keepVectors) this.#db.exec("DELETE FROM vectors");
          this.#db.exec("UPDATE stats SET documents = 0, total_length = 0");
          this.#sql.setMeta.run("embedderId", meta.embedderId);
          this.#sql.setMeta.run("storeVectors", meta.storeVectors ? "1" : "0");
          this.#sql.setMeta.run("analyzer", String(meta.analyzer));
          this.#sql.setMeta.run("splitter", meta.splitter);
        }),
      )
      .immediate();
  }

  sources(): StoredSource[] {
    // Inside a transaction this store did not open as a snapshot (`replacing`), read afresh: it may be writing.
    const version = this.#db.inTransaction ? this.#snapshot?.version : this.#version();
    if (version !== undefined && this.#sourcesRead?.version === version)
      return [...this.#sourcesRead.sources];
    const sources = this.#readSources();
    // Taken before the read, the version is that of the rows or of an older state: never newer than the rows.
    if (version !== undefined) this.#sourcesRead = { version, sources };
    return [...sources];
  }

  /**
   * This connection's view of the file: `data_version` (moves when another connection commits) and its own write
   * count (moves when it writes, or rolls a `replacing` back).
   */
  #version(): string {
    return `${this.#db.pragma("data_version", { simple: true })}:${this.#writes}`;
  }

  sourcesVersion(): number | undefined {
    return this.#sql.sourcesVersion.pluck().get() as number | undefined;
  }

  sourcesVersionAfterOwnWrites(version: number): number | undefined {
    return this.#ownWrites.since(version, this.sourcesVersion());
  }

  /** Runs `write` (inside a write transaction: no other writer can come between) and records the versions. */
  #ownWrite(write: () => void): void {
    const from = this.sourcesVersion();
    write();
    const to = this.sourcesVersion();
    if (from !== undefined && to !== undefined) this.#ownWrites.record(from, to);
  }

  sourcesOf(ids: readonly string[]): StoredSource[] {
    const sources: StoredSource[] = [];
    for (const id of ids) {
      const row = this.#sql.source.get(id) as SourceRow | undefined;
      if (row) sources.push(sourceOfRow(row));
    }
    return sources;
  }

  #readSources(): StoredSource[] {
    // In the documents' order (position, then id as SQLite orders text: by its UTF-8 bytes), sorted here: see
    // the statement.
    return sourcesOfRows(this.#sql.sources.all() as SourceRow[]);
  }

  sourceNodeIds(id: string): string[] {
    // Inside one `read` snapshot (reading every document's ids), the first call reads every sources row at once.
    if (!this.#snapshot) {
      const row = this.#sql.sourceNodeIds.raw().get(id) as [number, string | null] | undefined;
      return row ? nodeIdsOfRow(id, row[0], row[1], this.location) : [];
    }
    if (!this.#snapshot.nodeIds) {
      const rows = this.#sql.allSourceNodeIds.raw().all() as [string, number, string | null][];
      this.#snapshot.nodeIds = new Map(rows.map(([source, count, ids]) => [source, { count, ids }]));
    }
    const row = this.#snapshot.nodeIds.get(id);
    return row ? nodeIdsOfRow(id, row.count, row.ids, this.location) : [];
  }

  write(edits: readonly SourceEdit[], removed: readonly string[] = []): void {
    this.#db
      .transaction(() =>
        this.#ownWrite(() => {
          this.#writes++;
          const write = new SqliteWrite({
            sql: this.#sql,
            codeSql: this.#codeSql,
            location: this.location,
            analyze: this.#analyze,
            blockPostings: this.#blockPostings,
            termsWithBlocks: this.#knownTerms(),
            keepsVectors: this.meta()?.storeVectors === true,
            vectorOf: (hash) => this.vectors([hash]).get(hash),
          });
          for (const id of removed) write.remove(id);
          for (const edit of edits) write.replace(edit);
          write.finish();
        }),
      )
      .immediate();
    if ((this.#termsWithBlocks?.terms.size ?? 0) > MAX_KNOWN_TERMS) this.#termsWithBlocks = undefined;
  }

  /** The terms the postings table holds, when this connection knows them all (inside a write transaction). */
  #knownTerms(): Set<string> | undefined {
    const version = this.#db.pragma("data_version", { simple: true }) as number;
    if (this.#termsWithBlocks?.version !== version) {
      this.#termsWithBlocks =
        this.#sql.anyPosting.get() === undefined ? { version, terms: new Set() } : undefined;
    }
    return this.#termsWithBlocks?.terms;
  }

  setOrder(ids: readonly string[]): void {
    this.#db
      .transaction(() =>
        this.#ownWrite(() => {
          this.#writes++;
          for (const [position, id] of ids.entries()) this.#sql.setPosition.run(position, id);
        }),
      )
      .immediate();
  }

  bytesHashes(ids: readonly string[]): Map<string, string> {
    const hashes = new Map<string, string>();
    for (const id of ids) {
      const hash = this.#sql.bytesHash.get(id) as string | null | undefined;
      if (typeof hash === "string") hashes.set(id, hash);
    }
    return hashes;
  }

  setFingerprints(fingerprints: readonly SourceFingerprint[]): void {
    if (fingerprints.length === 0) return;
    this.#db
      .transaction(() =>
        this.#ownWrite(() => {
          this.#writes++;
          for (const { id, size, lastModifiedAt } of fingerprints)
            this.#sql.setFingerprint.run(size ?? null, lastModifiedAt ?? null, id);
        }),
      )
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
    return readPostings(this.#sql.postingBlocks.all(term) as PostingsBlockRow[], this.location);
  }

  postingsAt(term: string, keys: ArrayLike<number>): TermPostings {
    return readPostingsAt(
      (key) => this.#sql.blockHolding.get(term, key) as KeyedBlockRow | undefined,
      keys,
      this.location,
    );
  }

  chunks(keys: readonly number[]): StoredChunk[] {
    const found: StoredChunk[] = [];
    for (const key of keys) {
      const row = this.#sql.chunkByKey.get(key) as ChunkRow | undefined;
      if (row) found.push(chunkOfRow(row, this.location));
    }
    return found;
  }

  chunkByNodeId(id: string): StoredChunk | undefined {
    const row = this.#sql.chunkByNodeId.get(id) as ChunkRow | undefined;
    return row && chunkOfRow(row, this.location);
  }

  *allChunks(batchSize = 1024): Iterable<StoredChunk[]> {
    let after = 0;
    for (;;) {
      const rows = this.#sql.chunksAfter.all(after, batchSize) as ChunkRow[];
      if (rows.length === 0) return;
      after = (rows.at(-1) as ChunkRow).key;
      yield rows.map((row) => chunkOfRow(row, this.location));
    }
  }

  vectors(contentHashes: readonly string[]): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    for (const hash of contentHashes) {
      const blob = this.#sql.vector.pluck().get(hash) as Buffer | undefined;
      if (blob) found.set(hash, toFloat32(blob, this.location));
    }
    return found;
  }

  *allVectors(batchSize = 8192): Iterable<{ keys: number[]; vectors: Float32Array[] }> {
    let after = 0;
    for (;;) {
      const rows = this.#sql.vectorsAfter.raw().all(after, batchSize) as [number, Buffer][];
      if (rows.length === 0) return;
      after = (rows.at(-1) as [number, Buffer])[0];
      yield { keys: rows.map((row) => row[0]), vectors: rows.map((row) => toFloat32(row[1], this.location)) };
    }
  }

  /**
   * The `topK` chunks whose vectors are most cosine-similar to `query`, searched through the vectors' sign codes
   * ({@link searchCodes}: exact with at most 500 vectors); the codes stay read in this connection until another one
   * commits (`data_version`) or this one writes. `undefined` for a sparse query ({@link signCodesFit}) or one of
   * another length: the caller scores every vector.
   */
  denseTopK(query: Float32Array, topK: number): ScoredKey[] | undefined {
    // A sparse query's code says little about it: the caller scores every vector (exact, slower).
    if (!signCodesFit(query)) return undefined;
    const version = this.#version();
    if (this.#codes?.version !== version)
      this.#codes = { version, ...readCodePages(this.#codeSql, this.location) };
    return searchCodes(this.#codeSql, this.#codes, query, topK, this.location);
  }

  hasImages(): boolean {
    return this.#sql.anyImage.get() !== undefined;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
