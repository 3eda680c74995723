import path from "node:path";
import Database from "better-sqlite3";
import { expect } from "vitest";
import { SQLITE_INDEX_FILE } from "./open-sqlite-store.js";
import { decodePostings, type PostingsList } from "./postings-codec.js";
import { CODE_PAGE_KEYS } from "./sign-codes.js";

// What the SQLite store's tests compare: everything a search reads from one index file, by content, checked on the
// way (shared by sqlite-index-store.test.ts and its property test).
/** Everything BM25 and dense search read, by node id and term (keys differ between stores, content must not). */
export function snapshot(dir: string) {
  const db = new Database(path.join(dir, SQLITE_INDEX_FILE), { readonly: true });
  try {
    return {
      stats: db.prepare("SELECT documents, total_length FROM stats").get(),
      // df is the sum of a term's block counts (each checked against its block's postings).
      terms: db.prepare("SELECT term, sum(count) AS df FROM postings GROUP BY term ORDER BY term").all(),
      postings: postingsByNodeId(db),
      // The stats are the sums over the chunks, after any edits.
      sums: db
        .prepare("SELECT count(*) AS documents, coalesce(sum(length), 0) AS total_length FROM chunks")
        .get(),
      vectors: db.prepare("SELECT content_hash FROM vectors ORDER BY content_hash").pluck().all(),
      codes: codesByNodeId(db),
      sources: db.prepare("SELECT id, chunk_count FROM sources ORDER BY id").all(),
    };
  } finally {
    db.close();
  }
}

/**
 * Each chunk's vector code (its page row's bits at its key) by node id, checked on the way: a chunk's code is present
 * exactly when its content has a vector, and holds that vector's signs; no key without a chunk has a code.
 */
function codesByNodeId(db: Database.Database) {
  const pages = new Map(
    (db.prepare("SELECT page, words, present, codes FROM vector_codes").all() as CodesRow[]).map((row) => [
      row.page,
      row,
    ]),
  );
  const chunks = db
    .prepare(
      "SELECT c.key, c.node_id, v.embedding FROM chunks c LEFT JOIN vectors v ON v.content_hash = c.content_hash",
    )
    .all() as { key: number; node_id: string; embedding: Buffer | null }[];
  let present = 0;
  for (const page of pages.values()) for (const byte of page.present) present += popcount(byte);
  expect(present).toBe(chunks.filter((chunk) => chunk.embedding !== null).length);
  return chunks
    .map(({ key, node_id, embedding }) => {
      const page = pages.get(Math.floor(key / CODE_PAGE_KEYS));
      const slot = key % CODE_PAGE_KEYS;
      const has = page !== undefined && ((page.present[slot >>> 3] as number) & (1 << (slot & 7))) !== 0;
      expect(has).toBe(embedding !== null);
      if (!page || !embedding) return { node_id, code: null };
      const vector = new Float32Array(new Uint8Array(embedding).buffer);
      const words = new Uint32Array(new Uint8Array(page.codes).buffer).slice(
        slot * page.words,
        (slot + 1) * page.words,
      );
      for (let d = 0; d < page.words * 32; d++)
        expect(((words[d >>> 5] as number) >>> (d & 31)) & 1).toBe((vector[d] ?? 0) > 0 ? 1 : 0);
      return { node_id, code: [...words] };
    })
    .sort((left, right) => left.node_id.localeCompare(right.node_id));
}

interface CodesRow {
  page: number;
  words: number;
  present: Buffer;
  codes: Buffer;
}

function popcount(byte: number): number {
  let count = 0;
  for (let bits = byte; bits !== 0; bits >>>= 1) count += bits & 1;
  return count;
}

/** Every posting decoded from the blocks, by term and node id; a block's count must be its postings'. */
function postingsByNodeId(db: Database.Database) {
  const nodeIds = new Map(
    (db.prepare("SELECT key, node_id FROM chunks").raw().all() as [number, string][]).map(([key, id]) => [
      key,
      id,
    ]),
  );
  const rows: { term: string; node_id: string | undefined; tf: number; length: number }[] = [];
  const blocks = db
    .prepare("SELECT term, first_key, count, block FROM postings ORDER BY term, first_key")
    .all() as { term: string; first_key: number; count: number; block: Buffer }[];
  for (const { term, first_key: firstKey, count, block } of blocks) {
    const list: PostingsList = { keys: [], frequencies: [], lengths: [] };
    expect(decodePostings(block, list)).toBe(true);
    expect([list.keys.length, list.keys[0]]).toEqual([count, firstKey]);
    for (const [index, key] of list.keys.entries()) {
      rows.push({
        term,
        node_id: nodeIds.get(key),
        tf: list.frequencies[index] as number,
        length: list.lengths[index] as number,
      });
    }
  }
  return rows.sort((left, right) =>
    left.term === right.term
      ? String(left.node_id).localeCompare(String(right.node_id))
      : left.term < right.term
        ? -1
        : 1,
  );
}
