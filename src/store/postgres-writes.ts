import type { ChunkInput, SourceEdit } from "./index-store.js";
import { nodeRow } from "./node-row.js";
import type { PostgresClient } from "./postgres-layout.js";

// The write statements of the PostgreSQL store, run inside its write transaction (`t`: the index's quoted schema).

/** Deletes these chunks with their postings, keeping `terms.df` and the statistics exact. */
export async function removeChunks(
  client: PostgresClient,
  t: string,
  keys: readonly number[],
): Promise<void> {
  if (keys.length === 0) return;
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

/**
 * The postings and statistics a write has added so far, written once at its end ({@link flushPostings}): a term's
 * or the statistics' row updated once per edit would grow a chain of row versions inside one transaction (a rebuild
 * of 295 files spent 9 of its 13 s there).
 */
export interface PendingPostings {
  terms: string[];
  keys: number[];
  frequencies: number[];
  lengths: number[];
  documents: number;
  totalLength: number;
}

export function pendingPostings(): PendingPostings {
  return { terms: [], keys: [], frequencies: [], lengths: [], documents: 0, totalLength: 0 };
}

/**
 * Removes documents `ids` (their chunks, postings and sources rows) and returns the content hashes their chunks
 * held (vectors that may now be unused) and each document's position, which its replacement takes: an edit moves
 * no other document.
 */
export async function removeSources(
  client: PostgresClient,
  t: string,
  ids: readonly string[],
): Promise<{ freed: Set<string>; positions: Map<string, number> }> {
  const freed = new Set<string>();
  const positions = new Map<string, number>();
  if (ids.length === 0) return { freed, positions };
  const rows = await client.query(
    `SELECT key, content_hash FROM ${t}.chunks WHERE source_id = ANY($1::text[])`,
    [ids],
  );
  for (const row of rows.rows) freed.add(row.content_hash as string);
  await removeChunks(
    client,
    t,
    rows.rows.map((row) => row.key as number),
  );
  const gone = await client.query(
    `DELETE FROM ${t}.sources WHERE id = ANY($1::text[]) RETURNING id, position`,
    [ids],
  );
  for (const row of gone.rows) positions.set(row.id as string, row.position as number);
  return { freed, positions };
}

export async function insertEdit(
  client: PostgresClient,
  t: string,
  { source, chunks: given }: SourceEdit,
  pgvector: boolean,
  pending: PendingPostings,
  /** Where the document goes among the sources (a replaced one's own); after the last when undefined. */
  position?: number,
): Promise<void> {
  // A node id is one chunk: a later chunk with the same id replaces an earlier one, and one that another
  // document held (not expected: ids are `<file>#<n>`) moves here.
  const last = new Map(given.map((chunk, position) => [chunk.node.id, position]));
  const chunks = given.flatMap((chunk, position) =>
    last.get(chunk.node.id) === position ? [{ chunk, position }] : [],
  );
  if (source !== null) {
    await client.query(
      `INSERT INTO ${t}.sources (id, position, content_hash, size, last_modified_at, reader, chunk_count, bytes_hash)
       VALUES ($1, coalesce($7::int, (SELECT coalesce(max(position), -1) + 1 FROM ${t}.sources)), $2, $3, $4, $5, $6, $8)`,
      [
        source.id,
        source.contentHash,
        source.size ?? null,
        source.lastModifiedAt ?? null,
        source.reader ?? null,
        given.length,
        position ?? null,
        source.bytesHash ?? null,
      ],
    );
  }
  if (chunks.length === 0) return;
  const nodeIds = chunks.map(({ chunk }) => chunk.node.id);
  const taken = await client.query(`SELECT key FROM ${t}.chunks WHERE node_id = ANY($1::text[])`, [nodeIds]);
  const takenKeys = taken.rows.map((row) => row.key as number);
  await removeChunks(client, t, takenKeys);
  dropPending(pending, takenKeys);
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
      chunks.map(({ chunk }) => nodeRow(chunk.node)),
    ],
  );
  const keyOf = new Map(inserted.rows.map((row) => [row.node_id as string, row.key as number]));
  addPostings(pending, chunks, keyOf);
  const withVectors = chunks.filter(({ chunk }) => chunk.embedding !== undefined);
  if (withVectors.length > 0) await insertVectors(client, t, withVectors, pgvector);
  pending.documents += chunks.length;
  pending.totalLength += chunks.reduce((sum, { chunk }) => sum + chunk.terms.length, 0);
}

/** Forgets the pending postings of chunks removed again in the same write (their rows are already gone). */
function dropPending(pending: PendingPostings, keys: readonly number[]): void {
  if (keys.length === 0) return;
  const gone = new Set(keys);
  const kept = pending.keys.flatMap((key, index) => (gone.has(key) ? [] : [index]));
  if (kept.length === pending.keys.length) return;
  pending.terms = kept.map((index) => pending.terms[index] as string);
  pending.frequencies = kept.map((index) => pending.frequencies[index] as number);
  pending.lengths = kept.map((index) => pending.lengths[index] as number);
  pending.keys = kept.map((index) => pending.keys[index] as number);
}

/** Adds the chunks' postings (one per distinct term of a chunk) to the write's pending ones. */
function addPostings(
  pending: PendingPostings,
  chunks: readonly { chunk: ChunkInput }[],
  keyOf: ReadonlyMap<string, number>,
): void {
  const { terms, keys, frequencies, lengths } = pending;
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
}

/**
 * Writes a write's pending postings and statistics: each term's document frequency grows by the chunks that hold it
 * (one upsert, whose ids the postings then take), and the statistics row once.
 */
export async function flushPostings(
  client: PostgresClient,
  t: string,
  pending: PendingPostings,
): Promise<void> {
  const { terms, keys, frequencies, lengths } = pending;
  if (pending.documents !== 0 || pending.totalLength !== 0) {
    await client.query(
      `UPDATE ${t}.stats SET documents = documents + $1, total_length = total_length + $2 WHERE id = 0`,
      [pending.documents, pending.totalLength],
    );
  }
  if (terms.length === 0) return;
  const documentCounts = new Map<string, number>();
  for (const term of terms) documentCounts.set(term, (documentCounts.get(term) ?? 0) + 1);
  const added = await client.query(
    `INSERT INTO ${t}.terms (term, df) SELECT * FROM unnest($1::text[], $2::int[])
     ON CONFLICT (term) DO UPDATE SET df = ${t}.terms.df + excluded.df
     RETURNING id, term`,
    [[...documentCounts.keys()], [...documentCounts.values()]],
  );
  const idOf = new Map(added.rows.map((row) => [row.term as string, row.id as number]));
  await client.query(
    `INSERT INTO ${t}.postings (term_id, chunk, tf, length)
     SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::int[])`,
    [terms.map((term) => idOf.get(term) as number), keys, frequencies, lengths],
  );
}

async function insertVectors(
  client: PostgresClient,
  t: string,
  chunks: readonly { chunk: ChunkInput }[],
  pgvector: boolean,
): Promise<void> {
  const hashes = chunks.map(({ chunk }) => chunk.contentHash);
  const vectors = chunks.map(({ chunk }) => chunk.embedding as Float32Array);
  const blobs = vectors.map((vector) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
  if (pgvector) {
    await client.query(
      `INSERT INTO ${t}.vectors (content_hash, embedding, embedding_vector)
       SELECT h, e, v::vector FROM unnest($1::text[], $2::bytea[], $3::text[]) AS x(h, e, v)
       ON CONFLICT (content_hash) DO NOTHING`,
      [hashes, blobs, vectors.map(vectorLiteral)],
    );
    return;
  }
  await client.query(
    `INSERT INTO ${t}.vectors (content_hash, embedding)
     SELECT * FROM unnest($1::text[], $2::bytea[]) ON CONFLICT (content_hash) DO NOTHING`,
    [hashes, blobs],
  );
}

/** A vector as pgvector's text form, `[1,2,3]`. */
export function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector, (value) => (Number.isFinite(value) ? value : 0)).join(",")}]`;
}
