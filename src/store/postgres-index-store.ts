import { AsyncLocalStorage } from "node:async_hooks";
import type {
  ChunkInput,
  IndexStore,
  LexicalStatistics,
  ScoredKey,
  SourceEdit,
  StoredChunk,
  StoredSource,
  StoreMeta,
  TermPostings,
} from "./index-store.js";
import { damaged, decodeNode, encodeNode } from "./node-row.js";
import {
  POSTGRES_STORE_VERSION,
  postgresSchema,
  postgresVectorColumn,
  quoteIdentifier,
} from "./postgres-schema.js";

/** What the store needs of a connection: `pg`'s `PoolClient`, or PGlite. */
export interface PostgresClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** What the store needs of a pool: `pg`'s `Pool` (or an adapter of PGlite). */
export interface PostgresPool extends PostgresClient {
  connect(): Promise<PostgresClient & { release(error?: Error | boolean): void }>;
  end(): Promise<void>;
}

/** How the store found pgvector: installed (dense search in SQL) or not (with the reason, for the notice). */
export type PgvectorStatus = { available: true } | { available: false; reason: string };

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
      const s = quoteIdentifier(schema);
      store.#pgvector = await enablePgvector(client);
      await client.query(postgresSchema(schema));
      const version = await client.query(`SELECT value FROM ${s}.meta WHERE key = 'layout'`);
      const found = version.rows[0]?.value;
      if (found !== String(POSTGRES_STORE_VERSION)) {
        if (found !== undefined) {
          await client.query(`DROP SCHEMA ${s} CASCADE`);
          await client.query(postgresSchema(schema));
        }
        await client.query(`INSERT INTO ${s}.meta (key, value) VALUES ('layout', $1)`, [
          String(POSTGRES_STORE_VERSION),
        ]);
      }
      if (store.#pgvector.available && !(await hasVectorColumn(client, schema))) {
        await client.query(postgresVectorColumn(schema));
        // Vectors written before pgvector came have no vector value: the index is rebuilt (its meta forgotten).
        const old = await client.query(`SELECT 1 FROM ${s}.vectors LIMIT 1`);
        if (old.rows.length > 0) await client.query(`DELETE FROM ${s}.meta WHERE key <> 'layout'`);
      }
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
    const values = new Map(rows.map((row) => [row.key as string, row.value as string]));
    const embedderId = values.get("embedderId");
    if (embedderId === undefined) return undefined;
    return {
      embedderId,
      storeVectors: values.get("storeVectors") === "1",
      analyzer: Number(values.get("analyzer")),
    };
  }

  async read<T>(read: () => Promise<T>): Promise<T> {
    if (this.#transaction.getStore()) return read();
    const client = await this.#pool.connect();
    let failed: Error | undefined;
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const result = await this.#transaction.run({ client, writes: false }, read);
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

  replacing<T>(work: () => Promise<T>): Promise<T> {
    return this.#writing(() => work());
  }

  /** Runs `work` in one write transaction holding the index's advisory lock (joins the one it is called inside). */
  async #writing<T>(work: (client: PostgresClient) => Promise<T>): Promise<T> {
    const open = this.#transaction.getStore();
    if (open?.writes) return work(open.client);
    if (open) throw new Error("A write inside a read snapshot of the PostgreSQL index (a ragsynth bug).");
    const client = await this.#pool.connect();
    let failed: Error | undefined;
    try {
      await client.query("BEGIN");
      // Writers of this index take turns (until their commit), so no two interleave their statistics updates.
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [this.#lockKey]);
      const result = await this.#transaction.run({ client, writes: true }, () => work(client));
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
          ["embedderId", "storeVectors", "analyzer"],
          [meta.embedderId, meta.storeVectors ? "1" : "0", String(meta.analyzer)],
        ],
      );
    });
  }

  async sources(): Promise<StoredSource[]> {
    const rows = await this.#query(
      `SELECT id, content_hash, size, last_modified_at, reader, chunk_count FROM ${this.#t}.sources
       ORDER BY position, id`,
    );
    return rows.map((row) => ({
      id: row.id as string,
      contentHash: row.content_hash as string,
      ...(row.size === null ? {} : { size: Number(row.size) }),
      ...(row.last_modified_at === null ? {} : { lastModifiedAt: row.last_modified_at as string }),
      ...(row.reader === null ? {} : { reader: row.reader as string }),
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

  async write(edits: readonly SourceEdit[], removed: readonly string[] = []): Promise<void> {
    await this.#writing(async (client) => {
      const freed = new Set<string>();
      const ids = [...removed, ...edits.flatMap((edit) => (edit.source ? [edit.source.id] : []))];
      if (ids.length > 0) {
        const rows = await client.query(
          `SELECT key, content_hash FROM ${this.#t}.chunks WHERE source_id = ANY($1::text[])`,
          [ids],
        );
        for (const row of rows.rows) freed.add(row.content_hash as string);
        await this.#removeChunks(
          client,
          rows.rows.map((row) => row.key as number),
        );
        await client.query(`DELETE FROM ${this.#t}.sources WHERE id = ANY($1::text[])`, [ids]);
      }
      for (const edit of edits) await this.#insert(client, edit);
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
    { topK, k1, b }: { topK: number; k1: number; b: number },
  ): Promise<ScoredKey[]> {
    if (terms.length === 0) return [];
    // Okapi BM25 as createStoreLexicalSearch computes it: idf ln(1 + (N − df + 0.5)/(df + 0.5)), the average length
    // from the exact statistics (1 for an empty store), positive scores only, ties by key (insertion order).
    const rows = await this.#query(
      `WITH s AS (
         SELECT documents::float8 AS n,
                coalesce(nullif(total_length::float8 / nullif(documents, 0), 0), 1) AS average
         FROM ${this.#t}.stats WHERE id = 0 AND documents > 0
       ), q AS (
         SELECT t.id, ln(1 + (s.n - t.df + 0.5) / (t.df + 0.5)) AS idf
         FROM ${this.#t}.terms t CROSS JOIN s WHERE t.term = ANY($1::text[])
       ), scored AS (
         SELECT p.chunk AS key,
                sum(q.idf * p.tf * ($3::float8 + 1)
                    / (p.tf + $3::float8 * (1 - $4::float8 + $4::float8 * p.length / s.average))) AS score
         FROM q JOIN ${this.#t}.postings p ON p.term_id = q.id CROSS JOIN s
         GROUP BY p.chunk
       )
       SELECT key, score FROM scored WHERE score > 0 ORDER BY score DESC, key LIMIT $2`,
      [terms, topK, k1, b],
    );
    return rows.map((row) => ({ key: row.key as number, score: Number(row.score) }));
  }

  async chunks(keys: readonly number[]): Promise<StoredChunk[]> {
    if (keys.length === 0) return [];
    const rows = await this.#query(
      `SELECT key, node, content_hash FROM ${this.#t}.chunks WHERE key = ANY($1::int[])`,
      [keys],
    );
    const byKey = new Map(rows.map((row) => [row.key as number, row]));
    return keys.flatMap((key) => {
      const row = byKey.get(key);
      return row ? [this.#chunk(row)] : [];
    });
  }

  async chunkByNodeId(id: string): Promise<StoredChunk | undefined> {
    const [row] = await this.#query(
      `SELECT key, node, content_hash FROM ${this.#t}.chunks WHERE node_id = $1`,
      [id],
    );
    return row && this.#chunk(row);
  }

  async *allChunks(batchSize = 1024): AsyncIterable<StoredChunk[]> {
    let after = 0;
    for (;;) {
      const rows = await this.#query(
        `SELECT key, node, content_hash FROM ${this.#t}.chunks WHERE key > $1 ORDER BY key LIMIT $2`,
        [after, batchSize],
      );
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
    // Cosine distance in SQL (`<=>`), over the vectors of the query's dimensions; ties by key.
    const rows = await this.#query(
      `SELECT c.key, 1 - (v.embedding_vector <=> $1::vector) AS score
       FROM ${this.#t}.chunks c JOIN ${this.#t}.vectors v ON v.content_hash = c.content_hash
       WHERE vector_dims(v.embedding_vector) = $2
       ORDER BY v.embedding_vector <=> $1::vector, c.key LIMIT $3`,
      [vectorLiteral(query), query.length, topK],
    );
    return rows.map((row) => ({ key: row.key as number, score: Number(row.score) }));
  }

  async hasImages(): Promise<boolean> {
    const rows = await this.#query(`SELECT 1 FROM ${this.#t}.chunks WHERE is_image LIMIT 1`);
    return rows.length > 0;
  }

  async close(): Promise<void> {
    this.#closed ??= this.#pool.end();
    await this.#closed;
  }

  #chunk(row: Record<string, unknown>): StoredChunk {
    return {
      key: row.key as number,
      node: decodeNode(row.node as Uint8Array, this.location),
      contentHash: row.content_hash as string,
    };
  }

  /** Deletes these chunks with their postings, keeping `terms.df` and the statistics exact. */
  async #removeChunks(client: PostgresClient, keys: readonly number[]): Promise<void> {
    if (keys.length === 0) return;
    const t = this.#t;
    await client.query(
      `UPDATE ${t}.terms t SET df = t.df - p.n
       FROM (SELECT term_id, count(*)::int AS n FROM ${t}.postings WHERE chunk = ANY($1::int[]) GROUP BY term_id) p
       WHERE t.id = p.term_id`,
      [keys],
    );
    await client.query(
      `DELETE FROM ${t}.terms WHERE df <= 0 AND id IN (SELECT term_id FROM ${t}.postings WHERE chunk = ANY($1::int[]))`,
      [keys],
    );
    await client.query(`DELETE FROM ${t}.postings WHERE chunk = ANY($1::int[])`, [keys]);
    await client.query(
      `WITH gone AS (DELETE FROM ${t}.chunks WHERE key = ANY($1::int[]) RETURNING length)
       UPDATE ${t}.stats SET documents = documents - (SELECT count(*) FROM gone),
         total_length = total_length - (SELECT coalesce(sum(length), 0) FROM gone) WHERE id = 0`,
      [keys],
    );
  }

  async #insert(client: PostgresClient, { source, chunks: given }: SourceEdit): Promise<void> {
    const t = this.#t;
    // A node id is one chunk: a later chunk with the same id replaces an earlier one, and one that another
    // document held (not expected: ids are `<file>#<n>`) moves here.
    const last = new Map(given.map((chunk, position) => [chunk.node.id, position]));
    const chunks = given.flatMap((chunk, position) =>
      last.get(chunk.node.id) === position ? [{ chunk, position }] : [],
    );
    if (source !== null) {
      await client.query(
        `INSERT INTO ${t}.sources (id, position, content_hash, size, last_modified_at, reader, chunk_count)
         VALUES ($1, (SELECT coalesce(max(position), -1) + 1 FROM ${t}.sources), $2, $3, $4, $5, $6)`,
        [
          source.id,
          source.contentHash,
          source.size ?? null,
          source.lastModifiedAt ?? null,
          source.reader ?? null,
          given.length,
        ],
      );
    }
    if (chunks.length === 0) return;
    const nodeIds = chunks.map(({ chunk }) => chunk.node.id);
    const taken = await client.query(`SELECT key FROM ${t}.chunks WHERE node_id = ANY($1::text[])`, [
      nodeIds,
    ]);
    await this.#removeChunks(
      client,
      taken.rows.map((row) => row.key as number),
    );
    const inserted = await client.query(
      `INSERT INTO ${t}.chunks (node_id, source_id, position, content_hash, length, is_image, node)
       SELECT x.node_id, $2, x.position, x.content_hash, x.length, x.is_image, x.node
       FROM unnest($1::text[], $3::int[], $4::text[], $5::int[], $6::bool[], $7::bytea[])
         WITH ORDINALITY AS x(node_id, position, content_hash, length, is_image, node, n)
       ORDER BY x.n
       RETURNING key, node_id`,
      [
        nodeIds,
        source?.id ?? null,
        chunks.map(({ position }) => position),
        chunks.map(({ chunk }) => chunk.contentHash),
        chunks.map(({ chunk }) => chunk.terms.length),
        chunks.map(({ chunk }) => chunk.holdsImage),
        chunks.map(({ chunk }) => encodeNode(chunk.node)),
      ],
    );
    const keyOf = new Map(inserted.rows.map((row) => [row.node_id as string, row.key as number]));
    await this.#insertPostings(client, chunks, keyOf);
    const withVectors = chunks.filter(({ chunk }) => chunk.embedding !== undefined);
    if (withVectors.length > 0) await this.#insertVectors(client, withVectors);
    const totalLength = chunks.reduce((sum, { chunk }) => sum + chunk.terms.length, 0);
    await client.query(
      `UPDATE ${t}.stats SET documents = documents + $1, total_length = total_length + $2 WHERE id = 0`,
      [chunks.length, totalLength],
    );
  }

  /** Every chunk's postings in one statement, adding to each term's document frequency once per chunk. */
  async #insertPostings(
    client: PostgresClient,
    chunks: readonly { chunk: ChunkInput }[],
    keyOf: ReadonlyMap<string, number>,
  ): Promise<void> {
    const terms: string[] = [];
    const keys: number[] = [];
    const frequencies: number[] = [];
    const lengths: number[] = [];
    for (const { chunk } of chunks) {
      const counts = new Map<string, number>();
      for (const term of chunk.terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, tf] of counts) {
        terms.push(term);
        keys.push(keyOf.get(chunk.node.id) as number);
        frequencies.push(tf);
        lengths.push(chunk.terms.length);
      }
    }
    if (terms.length === 0) return;
    const t = this.#t;
    await client.query(
      `WITH x AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::int[]) AS x(term, chunk, tf, length)
       ), added AS (
         INSERT INTO ${t}.terms (term, df) SELECT term, count(*) FROM x GROUP BY term
         ON CONFLICT (term) DO UPDATE SET df = ${t}.terms.df + excluded.df
         RETURNING id, term
       )
       INSERT INTO ${t}.postings (term_id, chunk, tf, length)
       SELECT added.id, x.chunk, x.tf, x.length FROM x JOIN added ON added.term = x.term`,
      [terms, keys, frequencies, lengths],
    );
  }

  async #insertVectors(client: PostgresClient, chunks: readonly { chunk: ChunkInput }[]): Promise<void> {
    const hashes = chunks.map(({ chunk }) => chunk.contentHash);
    const vectors = chunks.map(({ chunk }) => chunk.embedding as Float32Array);
    const blobs = vectors.map((vector) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    if (this.pgvector.available) {
      await client.query(
        `INSERT INTO ${this.#t}.vectors (content_hash, embedding, embedding_vector)
         SELECT h, e, v::vector FROM unnest($1::text[], $2::bytea[], $3::text[]) AS x(h, e, v)
         ON CONFLICT (content_hash) DO NOTHING`,
        [hashes, blobs, vectors.map(vectorLiteral)],
      );
      return;
    }
    await client.query(
      `INSERT INTO ${this.#t}.vectors (content_hash, embedding)
       SELECT * FROM unnest($1::text[], $2::bytea[]) ON CONFLICT (content_hash) DO NOTHING`,
      [hashes, blobs],
    );
  }
}

/**
 * Whether pgvector can be used: it is installed in the database, or `CREATE EXTENSION vector` succeeds (inside the
 * caller's transaction, in a savepoint, so a failure leaves that transaction usable).
 */
async function enablePgvector(client: PostgresClient): Promise<PgvectorStatus> {
  const found = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
  if (found.rows.length > 0) return { available: true };
  await client.query("SAVEPOINT pgvector");
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS vector");
    await client.query("RELEASE SAVEPOINT pgvector");
    return { available: true };
  } catch (error) {
    await client.query("ROLLBACK TO SAVEPOINT pgvector");
    return { available: false, reason: (error as Error).message };
  }
}

/**
 * Whether the schema holds this layout version (and, where pgvector is installed, its vector column): then the store
 * opens without DDL. Reads only the catalog and the meta table.
 */
async function layoutState(
  pool: PostgresPool,
  schema: string,
): Promise<{ ready: false } | { ready: true; pgvector: PgvectorStatus }> {
  const table = await pool.query("SELECT to_regclass($1) AS meta", [`${quoteIdentifier(schema)}.meta`]);
  if (table.rows[0]?.meta === null || table.rows[0]?.meta === undefined) return { ready: false };
  const version = await pool.query(`SELECT value FROM ${quoteIdentifier(schema)}.meta WHERE key = 'layout'`);
  if (version.rows[0]?.value !== String(POSTGRES_STORE_VERSION)) return { ready: false };
  const extension = await pool.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
  if (extension.rows.length === 0) {
    return {
      ready: true,
      pgvector: { available: false, reason: "the extension vector is not installed in this database" },
    };
  }
  return (await hasVectorColumn(pool, schema))
    ? { ready: true, pgvector: { available: true } }
    : { ready: false };
}

async function hasVectorColumn(client: PostgresClient, schema: string): Promise<boolean> {
  const found = await client.query(
    `SELECT 1 FROM information_schema.columns
     WHERE table_schema = $1 AND table_name = 'vectors' AND column_name = 'embedding_vector'`,
    [schema],
  );
  return found.rows.length > 0;
}

/** A vector as pgvector's text form, `[1,2,3]`. */
function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector, (value) => (Number.isFinite(value) ? value : 0)).join(",")}]`;
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
