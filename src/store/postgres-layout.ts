import {
  POSTGRES_STORE_VERSION,
  postgresLayout2,
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
 * Creates the index's schema and tables (inside the caller's write transaction, holding the index's lock), empties
 * one of another layout version, and adds the vector column where pgvector can be used.
 */
export async function prepareLayout(client: PostgresClient, schema: string): Promise<PgvectorStatus> {
  const s = quoteIdentifier(schema);
  const pgvector = await enablePgvector(client);
  await client.query(postgresSchema(schema));
  const version = await client.query(`SELECT value FROM ${s}.meta WHERE key = 'layout'`);
  const found = version.rows[0]?.value;
  if (found === "1") {
    // Layout 1 → 2 in place (`postgresLayout2`).
    await client.query(postgresLayout2(schema));
    await client.query(`UPDATE ${s}.meta SET value = $1 WHERE key = 'layout'`, [
      String(POSTGRES_STORE_VERSION),
    ]);
  } else if (found !== String(POSTGRES_STORE_VERSION)) {
    if (found !== undefined) {
      await client.query(`DROP SCHEMA ${s} CASCADE`);
      await client.query(postgresSchema(schema));
    }
    await client.query(`INSERT INTO ${s}.meta (key, value) VALUES ('layout', $1)`, [
      String(POSTGRES_STORE_VERSION),
    ]);
  }
  if (pgvector.available && !(await hasVectorColumn(client, schema))) {
    await client.query(postgresVectorColumn(schema));
    // Vectors written before pgvector came have no vector value: the index is rebuilt (its meta forgotten).
    const old = await client.query(`SELECT 1 FROM ${s}.vectors LIMIT 1`);
    if (old.rows.length > 0) await client.query(`DELETE FROM ${s}.meta WHERE key <> 'layout'`);
  }
  return pgvector;
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
export async function layoutState(
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
