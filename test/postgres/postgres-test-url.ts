import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** The PostgreSQL URL of the test run, or undefined when there is none (see global-setup.ts). */
export function testPostgresUrl(): string | undefined {
  return inject("postgresUrl") || undefined;
}

/** A URL of `base` naming a new schema of its own (`?schema=t_<random>`), so tests never share an index. */
export function freshSchemaUrl(base: string, label: string): { url: string; schema: string } {
  const schema = `t_${label}_${randomBytes(4).toString("hex")}`;
  const url = new URL(base);
  url.searchParams.set("schema", schema);
  return { url: url.href, schema };
}

/** Drops the schemas tests made (with their tables). */
export async function dropSchemas(base: string, schemas: readonly string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * The store's own consistency, read in one snapshot: stats equal the sums over the chunks, df equals each term's
 * postings, every chunk has its vector (when vectors are kept), sources' chunk counts match.
 */
export async function postgresConsistency(base: string, schema: string) {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  const s = `"${schema}"`;
  const one = async (sql: string) => Number((await client.query(sql)).rows[0]?.n);
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const result = {
      sources: await one(`SELECT count(*) AS n FROM ${s}.sources`),
      chunks: await one(`SELECT count(*) AS n FROM ${s}.chunks`),
      sourceChunks: await one(`SELECT coalesce(sum(chunk_count), 0) AS n FROM ${s}.sources`),
      statsDocuments: await one(`SELECT documents AS n FROM ${s}.stats`),
      statsLength: await one(`SELECT total_length AS n FROM ${s}.stats`),
      chunkLength: await one(`SELECT coalesce(sum(length), 0) AS n FROM ${s}.chunks`),
      dfMismatches: await one(
        `SELECT count(*) AS n FROM ${s}.terms t WHERE df != (SELECT count(*) FROM ${s}.postings WHERE term_id = t.id)`,
      ),
      orphanTerms: await one(
        `SELECT count(*) AS n FROM ${s}.terms t WHERE NOT EXISTS (SELECT 1 FROM ${s}.postings p WHERE p.term_id = t.id)`,
      ),
      vectorless: await one(
        `SELECT count(*) AS n FROM ${s}.chunks c WHERE NOT EXISTS (SELECT 1 FROM ${s}.vectors v WHERE v.content_hash = c.content_hash)`,
      ),
    };
    await client.query("COMMIT");
    return result;
  } finally {
    await client.end();
  }
}
