import { AsyncLocalStorage } from "node:async_hooks";
import type {
  IndexStore,
  LexicalStatistics,
  ScoredKey,
  SourceEdit,
  SourceFingerprint,
  StoredChunk,
  StoredSource,
  StoreMeta,
  TermPostings,
} from "./index-store.js";
import { damaged, decodeNode, withFileFacts } from "./node-row.js";
import {
  layoutState,
  type PgvectorStatus,
  type PostgresClient,
  type PostgresPool,
  prepareLayout,
} from "./postgres-layout.js";
import { quoteIdentifier } from "./postgres-schema.js";
import { postgresDenseTopK, postgresLexicalTopK } from "./postgres-search.js";
import { flushPostings, insertEdit, pendingPostings, removeSources } from "./postgres-writes.js";
import { storeMetaOf } from "./store-meta.js";

export type { PgvectorStatus, PostgresClient, PostgresPool } from "./postgres-layout.js";

/**
 * {@link IndexStore} on PostgreSQL: the SQLite store's tables in one schema, BM25 computed in SQL, every write one
 * transaction. Reads inside `read` share one REPEATABLE READ transaction (one snapshot); a write transaction takes
 * the index's advisory lock first, so two indexers take turns and the statistics stay exact. Calls made inside
 * `read`/`replacing` find their transaction's connection through async context; others use the pool.
 */
export class PostgresIndexStore implements IndexStore {
  readonly location: string;
  #closed: Promise<void> | undefined;
  #pgvector: PgvectorStatus = { available: false, reason: "not checked yet" };
  readonly #pool: PostgresPool;
  readonly #schema: string;
  readonly #lockKey: string;
  readonly #transaction = new AsyncLocalStorage<{ client: PostgresClient; writes: boolean }>();

  private constructor(pool: PostgresPool, schema: string, location: string) {
    this.#pool = pool;
    this.#schema = schema;
    this.location = location;
    this.#lockKey = `ragsynth:${schema}`;
  }

  /** Whether pgvector is there (dense search in SQL), or why not (dense search then scans the vectors in JS). */
  get pgvector(): PgvectorStatus {
    return this.#pgvector;
  }

  get notice(): string | undefined {
    if (this.#pgvector.available) return undefined;
    return `pgvector is not available in ${this.location} (${this.#pgvector.reason}): dense search reads every stored vector and ranks them exactly in JS. Install the extension (CREATE EXTENSION vector) for dense search in SQL.`;
  }

  /**
   * Prepares the schema on `pool` (creating its tables, emptying one of another layout version, under the advisory
   * lock) and opens the store. pgvector is used when `CREATE EXTENSION vector` succeeds (or it is there already).
   */
  static async open(
    pool: PostgresPool,
    { schema, location }: { schema: string; location: string },
  ): Promise<PostgresIndexStore> {
    const store = new PostgresIndexStore(pool, schema, location);
    // Ready (the usual case): no DDL and no lock, so an ask never waits for an indexer's open transaction.
    const ready = await layoutState(pool, schema);
    if (ready.ready) {
      store.#pgvector = ready.pgvector;
      return store;
    }
    await store.#writing(async (client) => {
      store.#pgvector = await prepareLayout(client, schema);
    });
    return store;
  }

  get #t(): string {
    return quoteIdentifier(this.#schema);
  }

  async #query(text: string, values?: unknown[]): Promise<Record<string, unknown>[]> {
    const client = this.#transaction.getStore()?.client ?? this.#pool;
    return (await client.query(text, values)).rows;
  }

  async meta(): Promise<StoreMeta | undefined> {
    const rows = await this.#query(`SELECT key, value FROM ${this.#t}.meta`);
    return storeMetaOf(new Map(rows.map((row) => [row.key as string, row.value as string])));
  }

  async read<T>(read: () => Promise<T>): Promise<T> {
    if (this.#transaction.getStore()) return read();
    return this.#transactionOn(["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"], false, read);
  }

  replacing<T>(work: () => Promise<T>): Promise<T> {
    return this.#writing(() => work());
  }

  /** Runs `work` in one write transaction holding the index's advisory lock (joins the one it is called inside). */
  async #writing<T>(work: (client: PostgresClient) => Promise<T>): Promise<T> {
    const open = this.#transaction.getStore();
    if (open?.writes) return work(open.client);
    if (open) throw new Error("A write inside a read snapshot of the PostgreSQL index (a ragsynth bug).");
    // Writers of this index take turns (until their commit), so no two interleave their statistics updates.
    const lock = { text: "SELECT pg_advisory_xact_lock(hashtext($1))", values: [this.#lockKey] };
    return this.#transactionOn(["BEGIN", lock], true, work);
  }

  /** Runs `work` in a transaction begun by `begin` on a connection of its own, which calls inside it then use. */
  async #transactionOn<T>(
    begin: readonly (string | { text: string; values: unknown[] })[],
    writes: boolean,
    work: (client: PostgresClient) => Promise<T>,
  ): Promise<T> {
    const client = await this.#pool.connect();
    let failed: Error | undefined;
    try {
      for (const statement of begin) {
        if (typeof statement === "string") await client.query(statement);
        else await client.query(statement.text, statement.values);
      }
      const result = await this.#transaction.run({ client, writes }, () => work(client));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      failed = error as Error;
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release(failed !== undefined && isConnectionError(failed));
    }
  }

  async reset(meta: StoreMeta, { keepVectors = false } = {}): Promise<void> {
    await this.#writing(async (client) => {
      // DELETE, not TRUNCATE: a reader's snapshot from before keeps seeing the rows (TRUNCATE is not MVCC-safe).
      for (const table of ["sources", "chunks", "terms", "postings"])
        await client.query(`DELETE FROM ${this.#t}.${table}`);
      await client.query(`DELETE FROM ${this.#t}.meta WHERE key <> 'layout'`);
      if (!keepVectors) await client.query(`DELETE FROM ${this.#t}.vectors`);
      await client.query(`UPDATE ${this.#t}.stats SET documents = 0, total_length = 0`);
      await client.query(
        `INSERT INTO ${this.#t}.meta (key, value) SELECT * FROM unnest($1::text[], $2::text[])
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [
          ["embedderId", "storeVectors", "analyzer", "splitter"],
          [meta.embedderId, meta.storeVectors ? "1" : "0", String(meta.analyzer), meta.splitter],
        ],
      );
    });
  }

  async sources(): Promise<StoredSource[]> {
    const rows = await this.#query(
      `SELECT id, content_hash, size, last_modified_at, reader, chunk_count, bytes_hash FROM ${this.#t}.sources
       ORDER BY position, id`,
    );
    return rows.map((row) => ({
      id: row.id as string,
      contentHash: row.content_hash as string,
      ...(row.size === null ? {} : { size: Number(row.size) }),
      ...(row.last_modified_at === null ? {} : { lastModifiedAt: row.last_modified_at as string }),
      ...(row.reader === null ? {} : { reader: row.reader as string }),
      ...(row.bytes_hash === null ? {} : { bytesHash: row.bytes_hash as string }),
      chunkCount: Number(row.chunk_count),
    }));
  }

  async sourceNodeIds(id: string): Promise<string[]> {
    const rows = await this.#query(
      `SELECT node_id FROM ${this.#t}.chunks WHERE source_id = $1 ORDER BY position`,
      [id],
    );
    return rows.map((row) => row.node_id as string);
  }

  async nodeIdsBySource(): Promise<Map<string, string[]>> {
    const rows = await this.#query(
      `SELECT source_id, node_id FROM ${this.#t}.chunks WHERE source_id IS NOT NULL ORDER BY source_id, position`,
    );
    const bySource = new Map<string, string[]>();
    for (const row of rows) {
      const id = row.source_id as string;
      const ids = bySource.get(id) ?? [];
      if (ids.length === 0) bySource.set(id, ids);
      ids.push(row.node_id as string);
    }
    return bySource;
  }

  async write(edits: readonly SourceEdit[], removed: readonly string[] = []): Promise<void> {
    await this.#writing(async (client) => {
      const ids = [...removed, ...edits.flatMap((edit) => (edit.source ? [edit.source.id] : []))];
      const { freed, positions } = await removeSources(client, this.#t, ids);
      const pending = pendingPostings();
      for (const edit of edits) {
        const position = edit.source ? positions.get(edit.source.id) : undefined;
        await insertEdit(client, this.#t, edit, this.#pgvector.available, pending, position);
      }
      await flushPostings(client, this.#t, pending);
      if (freed.size > 0) {
        await client.query(
          `DELETE FROM ${this.#t}.vectors v WHERE v.content_hash = ANY($1::text[])
           AND NOT EXISTS (SELECT 1 FROM ${this.#t}.chunks c WHERE c.content_hash = v.content_hash)`,
          [[...freed]],
        );
      }
    });
  }

  async setOrder(ids: readonly string[]): Promise<void> {
    await this.#writing(async (client) => {
      await client.query(
        `UPDATE ${this.#t}.sources s SET position = x.position
         FROM unnest($1::text[]) WITH ORDINALITY AS x(id, position) WHERE s.id = x.id`,
        [ids],
      );
    });
  }

  async setFingerprints(fingerprints: readonly SourceFingerprint[]): Promise<void> {
    if (fingerprints.length === 0) return;
    await this.#writing(async (client) => {
      await client.query(
        `UPDATE ${this.#t}.sources s SET size = x.size, last_modified_at = x.last_modified_at
         FROM unnest($1::text[], $2::double precision[], $3::text[]) AS x(id, size, last_modified_at)
         WHERE s.id = x.id`,
        [
          fingerprints.map((row) => row.id),
          fingerprints.map((row) => row.size ?? null),
          fingerprints.map((row) => row.lastModifiedAt ?? null),
        ],
      );
    });
  }

  async settle(): Promise<void> {
    // VACUUM runs outside a transaction; inside one (a rebuild's), the caller settles once it has committed.
    if (this.#transaction.getStore()) return;
    try {
      await this.#pool.query(`VACUUM (ANALYZE) ${this.#t}.postings, ${this.#t}.terms, ${this.#t}.chunks`);
    } catch {
      // Not the owner, or the server busy: autovacuum settles the tables in its own time.
    }
  }

  async statistics(): Promise<LexicalStatistics> {
    const [row] = await this.#query(`SELECT documents, total_length FROM ${this.#t}.stats WHERE id = 0`);
    return { documents: Number(row?.documents ?? 0), totalLength: Number(row?.total_length ?? 0) };
  }

  async documentFrequencies(terms: readonly string[]): Promise<Map<string, number>> {
    const rows = await this.#query(`SELECT term, df FROM ${this.#t}.terms WHERE term = ANY($1::text[])`, [
      terms,
    ]);
    return new Map(rows.map((row) => [row.term as string, Number(row.df)]));
  }

  async postings(term: string): Promise<TermPostings | undefined> {
    const rows = await this.#query(
      `SELECT p.chunk, p.tf, p.length FROM ${this.#t}.postings p
       WHERE p.term_id = (SELECT id FROM ${this.#t}.terms WHERE term = $1) ORDER BY p.chunk`,
      [term],
    );
    if (rows.length === 0) return undefined;
    return {
      keys: Int32Array.from(rows, (row) => row.chunk as number),
      frequencies: rows.map((row) => row.tf as number),
      lengths: rows.map((row) => row.length as number),
    };
  }

  async lexicalTopK(
    terms: readonly string[],
    options: { topK: number; k1: number; b: number },
  ): Promise<ScoredKey[]> {
    return postgresLexicalTopK((text, values) => this.#query(text, values), this.#t, terms, options);
  }

  async chunks(keys: readonly number[]): Promise<StoredChunk[]> {
    if (keys.length === 0) return [];
    const rows = await this.#query(`${this.#chunkWithFacts} WHERE c.key = ANY($1::int[])`, [keys]);
    const byKey = new Map(rows.map((row) => [row.key as number, row]));
    return keys.flatMap((key) => {
      const row = byKey.get(key);
      return row ? [this.#chunk(row)] : [];
    });
  }

  async chunkByNodeId(id: string): Promise<StoredChunk | undefined> {
    const [row] = await this.#query(`${this.#chunkWithFacts} WHERE c.node_id = $1`, [id]);
    return row && this.#chunk(row);
  }

  async *allChunks(batchSize = 1024): AsyncIterable<StoredChunk[]> {
    let after = 0;
    for (;;) {
      const rows = await this.#query(`${this.#chunkWithFacts} WHERE c.key > $1 ORDER BY c.key LIMIT $2`, [
        after,
        batchSize,
      ]);
      if (rows.length === 0) return;
      after = (rows.at(-1) as Record<string, unknown>).key as number;
      yield rows.map((row) => this.#chunk(row));
    }
  }

  async vectors(contentHashes: readonly string[]): Promise<Map<string, Float32Array>> {
    if (contentHashes.length === 0) return new Map();
    const rows = await this.#query(
      `SELECT content_hash, embedding FROM ${this.#t}.vectors WHERE content_hash = ANY($1::text[])`,
      [contentHashes],
    );
    return new Map(rows.map((row) => [row.content_hash as string, toFloat32(row.embedding as Uint8Array)]));
  }

  async *allVectors(batchSize = 8192): AsyncIterable<{ keys: number[]; vectors: Float32Array[] }> {
    let after = 0;
    for (;;) {
      const rows = await this.#query(
        `SELECT c.key, v.embedding FROM ${this.#t}.chunks c JOIN ${this.#t}.vectors v ON v.content_hash = c.content_hash
         WHERE c.key > $1 ORDER BY c.key LIMIT $2`,
        [after, batchSize],
      );
      if (rows.length === 0) return;
      after = (rows.at(-1) as Record<string, unknown>).key as number;
      yield {
        keys: rows.map((row) => row.key as number),
        vectors: rows.map((row) => toFloat32(row.embedding as Uint8Array)),
      };
    }
  }

  async denseTopK(query: Float32Array, topK: number): Promise<ScoredKey[] | undefined> {
    if (!this.pgvector.available) return undefined;
    return postgresDenseTopK((text, values) => this.#query(text, values), this.#t, query, topK);
  }

  async hasImages(): Promise<boolean> {
    const rows = await this.#query(`SELECT 1 FROM ${this.#t}.chunks WHERE is_image LIMIT 1`);
    return rows.length > 0;
  }

  async close(): Promise<void> {
    this.#closed ??= this.#pool.end();
    await this.#closed;
  }

  /** A chunk's row with its file's size and time, which its node is read with (node-row.ts, `withFileFacts`). */
  get #chunkWithFacts(): string {
    return `SELECT c.key, c.node, c.content_hash, s.size, s.last_modified_at
      FROM ${this.#t}.chunks c LEFT JOIN ${this.#t}.sources s ON s.id = c.source_id`;
  }

  #chunk(row: Record<string, unknown>): StoredChunk {
    return {
      key: row.key as number,
      node: withFileFacts(decodeNode(row.node as Uint8Array, this.location), {
        size: row.size as number | null,
        lastModifiedAt: row.last_modified_at as string | null,
      }),
      contentHash: row.content_hash as string,
    };
  }
}

function toFloat32(blob: Uint8Array): Float32Array {
  if (blob.byteLength % 4 !== 0)
    throw damaged("store", "a vector whose size is not a whole number of floats");
  // A copy: the bytes need not be 4-byte aligned.
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

/** A failure that leaves the connection unusable (it is then dropped from the pool, not reused). */
function isConnectionError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code);
}
