import type { ScoredKey } from "./index-store.js";
import { vectorLiteral } from "./postgres-writes.js";

// The ranking queries of the PostgreSQL store, computed by the engine (`t`: the index's quoted schema), as
// postgres-writes.ts holds its writes. `query` runs one statement on the store's current connection.

/** Runs one statement and gives its rows. */
export type PostgresQuery = (text: string, values?: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * The `topK` chunks with the highest positive BM25 score for these query terms: Okapi BM25 as
 * `createStoreLexicalSearch` computes it (idf ln(1 + (N − df + 0.5)/(df + 0.5)), the average length from the exact
 * statistics, 1 for an empty store), ties by key (insertion order). A tie is a tie to 9 decimals: the engine adds a
 * chunk's terms in whatever order its plan gives (parallel workers too), so equal scores came out a last bit apart,
 * and the same ask over the same index named other chunks from run to run.
 */
export async function postgresLexicalTopK(
  query: PostgresQuery,
  t: string,
  terms: readonly string[],
  { topK, k1, b }: { topK: number; k1: number; b: number },
): Promise<ScoredKey[]> {
  if (terms.length === 0) return [];
  const rows = await query(
    `WITH s AS (
       SELECT documents::float8 AS n,
              coalesce(nullif(total_length::float8 / nullif(documents, 0), 0), 1) AS average
       FROM ${t}.stats WHERE id = 0 AND documents > 0
     ), q AS (
       SELECT t.id, ln(1 + (s.n - t.df + 0.5) / (t.df + 0.5)) AS idf
       FROM ${t}.terms t CROSS JOIN s WHERE t.term = ANY($1::text[])
     ), scored AS (
       SELECT p.chunk AS key,
              sum(q.idf * p.tf * ($3::float8 + 1)
                  / (p.tf + $3::float8 * (1 - $4::float8 + $4::float8 * p.length / s.average))) AS score
       FROM q JOIN ${t}.postings p ON p.term_id = q.id CROSS JOIN s
       GROUP BY p.chunk
     )
     SELECT key, score FROM scored WHERE score > 0 ORDER BY round(score::numeric, 9) DESC, key LIMIT $2`,
    [terms, topK, k1, b],
  );
  return rows.map((row) => ({ key: row.key as number, score: Number(row.score) }));
}

/**
 * The `topK` chunks whose vectors are most cosine-similar to `vector`, by pgvector's cosine distance (`<=>`) over the
 * vectors of its dimensions; ties by key.
 */
export async function postgresDenseTopK(
  query: PostgresQuery,
  t: string,
  vector: Float32Array,
  topK: number,
): Promise<ScoredKey[]> {
  const rows = await query(
    `SELECT c.key, 1 - (v.embedding_vector <=> $1::vector) AS score
     FROM ${t}.chunks c JOIN ${t}.vectors v ON v.content_hash = c.content_hash
     WHERE vector_dims(v.embedding_vector) = $2
     ORDER BY v.embedding_vector <=> $1::vector, c.key LIMIT $3`,
    [vectorLiteral(vector), vector.length, topK],
  );
  return rows.map((row) => ({ key: row.key as number, score: Number(row.score) }));
}
