import type BetterSqlite3 from "better-sqlite3";
import type { TextNode } from "../schema/text-node.js";
import type {
  ChunkInput,
  LexicalStatistics,
  ScoredKey,
  SourceEdit,
  StoredChunk,
  StoredSource,
  StoreMeta,
  SyncIndexStore,
  TermPostings,
} from "./index-store.js";
import { damaged, decodeNode, encodeNode } from "./node-row.js";
import { type CodePage, signCodesFit } from "./sign-codes.js";
import { PostingsBatch, type PostingsBlockRow, readPostings } from "./sqlite-postings.js";
import { SqliteStatements } from "./sqlite-statements.js";
import {
  readCodePages,
  searchCodes,
  toFloat32,
  VectorCodeStatements,
  VectorCodesBatch,
} from "./sqlite-vector-codes.js";
import { storeMetaOf } from "./store-meta.js";

/** {@link IndexStore} on one SQLite file through better-sqlite3 (synchronous, so a read is a few microseconds). */
export class SqliteIndexStore implements SyncIndexStore {
  readonly location: string;
  readonly #db: BetterSqlite3.Database;
  readonly #sql: SqliteStatements;
  readonly #codeSql: VectorCodeStatements;
  /** The codes read by the last dense search, and the `data_version` and own write count they were read at. */
  #codes: { version: string; pages: CodePage[]; words: number } | undefined;
  #writes = 0;
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
        this.#writes++;
        for (const table of ["sources", "chunks", "postings", "meta", "vector_codes"])
          this.#db.exec(`DELETE FROM ${table}`);
        if (!keepVectors) this.#db.exec("DELETE FROM vectors");
        this.#db.exec("UPDATE stats SET documents = 0, total_length = 0");
        this.#sql.setMeta.run("embedderId", meta.embedderId);
        this.#sql.setMeta.run("storeVectors", meta.storeVectors ? "1" : "0");
        this.#sql.setMeta.run("analyzer", String(meta.analyzer));
        this.#sql.setMeta.run("splitter", meta.splitter);
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
        this.#writes++;
        const freed = new Set<string>();
        const batch: WriteBatch = {
          postings: new PostingsBatch(this.#sql, this.location, this.#blockPostings),
          codes: new VectorCodesBatch(this.#codeSql, this.location),
          keepsVectors: this.meta()?.storeVectors === true,
        };
        for (const id of removed) this.#removeSource(id, freed, batch);
        for (const edit of edits) {
          const replaced = edit.source
            ? this.#removeSource(edit.source.id, freed, batch, edit.chunks)
            : undefined;
          this.#insert(edit, batch, replaced);
        }
        batch.postings.flush();
        batch.codes.flush();
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
    return readPostings(this.#sql.postingBlocks.all(term) as PostingsBlockRow[], this.location);
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
    const version = `${this.#db.pragma("data_version", { simple: true })}:${this.#writes}`;
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

  /**
   * Removes a document's rows, except the chunks `replacement` holds again with the same node id and content (an
   * edit that changed one part of a file): those keep their row and postings (same content, same terms), and are
   * returned by node id with their keys, for {@link #insert} to rewrite their node (its metadata may have changed),
   * with the document's position, which its replacement takes (so an edit moves no other document).
   */
  #removeSource(
    id: string,
    freed: Set<string>,
    batch: WriteBatch,
    replacement: readonly ChunkInput[] = [],
  ): Replaced {
    const again = new Map(replacement.map((chunk) => [chunk.node.id, chunk.contentHash]));
    const kept = new Map<string, number>();
    for (const chunk of this.#sql.sourceChunks.all(id) as SourceChunkRow[]) {
      if (again.get(chunk.node_id) === chunk.content_hash) {
        kept.set(chunk.node_id, chunk.key);
        continue;
      }
      this.#removeChunk(chunk.key, batch);
      freed.add(chunk.content_hash);
    }
    const row = this.#sql.deleteSource.get(id) as { position: number } | undefined;
    return { kept, position: row?.position };
  }

  #removeChunk(key: number, batch: WriteBatch): void {
    const row = this.#sql.chunkRemoval.get(key) as { length: number; node: Buffer | string } | undefined;
    if (row === undefined) return;
    batch.postings.remove(key, row.length, () => this.#analyze(decodeNode(row.node, this.location)));
    if (batch.keepsVectors) batch.codes.clear(key);
    this.#sql.deleteChunk.run(key);
  }

  #insert({ source, chunks }: SourceEdit, batch: WriteBatch, replaced?: Replaced): void {
    if (source === null) {
      for (const [position, chunk] of chunks.entries()) this.#insertChunk(null, position, chunk, batch);
      return;
    }
    this.#sql.insertSource.run(
      source.id,
      replaced?.position ?? null,
      source.contentHash,
      source.size ?? null,
      source.lastModifiedAt ?? null,
      source.reader ?? null,
      chunks.length,
      chunks.every(({ node }, index) => node.id === `${source.id}#${index}`)
        ? null
        : JSON.stringify(chunks.map(({ node }) => node.id)),
    );
    for (const [position, chunk] of chunks.entries()) {
      const key = replaced?.kept.get(chunk.node.id);
      if (key === undefined) this.#insertChunk(source.id, position, chunk, batch);
      else this.#sql.keepChunk.run(position, chunk.holdsImage ? 1 : 0, encodeNode(chunk.node), key);
    }
  }

  #insertChunk(
    sourceId: string | null,
    position: number,
    { node, contentHash, terms, embedding, holdsImage }: ChunkInput,
    batch: WriteBatch,
  ): void {
    // A node id is one chunk: one that another document held (not expected: ids are `<file>#<n>`) moves here.
    const existing = this.#sql.chunkKeyByNodeId.pluck().get(node.id) as number | undefined;
    if (existing !== undefined) {
      const from = this.#sql.chunkSource.pluck().get(existing) as string | null;
      this.#removeChunk(existing, batch);
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
    batch.postings.add(key, terms);
    if (embedding) this.#sql.insertVector.run(contentHash, toBlob(embedding));
    if (!batch.keepsVectors) return;
    // A chunk written without its vector takes the one its content already has (the vectors are keyed by content).
    const vector = embedding ?? this.vectors([contentHash]).get(contentHash);
    if (vector) batch.codes.set(key, vector);
  }
}

/** The changes one write gathers before writing them: postings blocks and pages of vector codes. */
interface WriteBatch {
  postings: PostingsBatch;
  codes: VectorCodesBatch;
  /** Whether the store keeps vectors (else it keeps no codes either). */
  keepsVectors: boolean;
}

/** What removing a document for its replacement leaves: the chunks kept by node id (their keys), its position. */
interface Replaced {
  kept: Map<string, number>;
  position: number | undefined;
}

interface SourceRow {
  id: string;
  content_hash: string;
  size: number | null;
  last_modified_at: string | null;
  reader: string | null;
  chunk_count: number;
}

interface SourceChunkRow {
  key: number;
  node_id: string;
  content_hash: string;
}

interface ChunkRow {
  key: number;
  node: Buffer | string;
  content_hash: string;
}

function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}
