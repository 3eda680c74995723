import type { Database, Statement } from "better-sqlite3";
import { selectTopK } from "../retrieval/get-top-k-embeddings.js";
import { cosineScores } from "../retrieval/vector-index-retriever.js";
import type { ScoredKey } from "./index-store.js";
import { damaged } from "./node-row.js";
import { CODE_PAGE_KEYS, type CodePage, codeWords, signCodeCandidates, writeSignCode } from "./sign-codes.js";

// The sign codes of a SQLite index's vectors (sign-codes.ts), kept in pages of CODE_PAGE_KEYS chunk keys: one row
// per page, so a dense search reads a few hundred rows at 10^6 vectors and a write rewrites only the pages of the
// keys it adds or removes.

/**
 * Dense search scores exactly (cosine over the stored float32 vectors) at least this many candidates, or
 * `DENSE_RESCORE_PER_RESULT` per result asked when more; with no more vectors than that, every one of them.
 */
const DENSE_RESCORE = 500;
const DENSE_RESCORE_PER_RESULT = 50;
/** Candidates kept by the first (Hamming) pass over the sign codes, per candidate scored exactly. */
const DENSE_WIDE_PER_RESCORE = 40;

/** The codes table: page `p` holds keys `p·CODE_PAGE_KEYS` …, `words` 32-bit words per code. */
export const VECTOR_CODES_TABLE = `CREATE TABLE IF NOT EXISTS vector_codes (
  page INTEGER PRIMARY KEY,
  words INTEGER NOT NULL,
  present BLOB NOT NULL,
  codes BLOB NOT NULL
);`;

/** The codes' statements of one connection. */
export class VectorCodeStatements {
  readonly page: Statement;
  readonly pages: Statement;
  readonly putPage: Statement;
  readonly deletePage: Statement;
  readonly vectorOfKey: Statement;
  readonly vectorsFrom: Statement;

  constructor(db: Database) {
    this.page = db.prepare("SELECT words, present, codes FROM vector_codes WHERE page = ?");
    this.pages = db.prepare("SELECT page, words, present, codes FROM vector_codes ORDER BY page");
    this.putPage = db.prepare(
      "INSERT OR REPLACE INTO vector_codes (page, words, present, codes) VALUES (?, ?, ?, ?)",
    );
    this.deletePage = db.prepare("DELETE FROM vector_codes WHERE page = ?");
    this.vectorOfKey = db.prepare(
      "SELECT v.embedding FROM chunks c JOIN vectors v ON v.content_hash = c.content_hash WHERE c.key = ?",
    );
    this.vectorsFrom = db.prepare(
      `SELECT c.key, v.embedding FROM chunks c JOIN vectors v ON v.content_hash = c.content_hash
       WHERE c.key > ? ORDER BY c.key LIMIT ?`,
    );
  }
}

/**
 * The code changes of one write transaction: pages are read when first touched, changed in memory, and written
 * (or deleted, once empty) by {@link VectorCodesBatch.flush}.
 */
export class VectorCodesBatch {
  readonly #sql: VectorCodeStatements;
  readonly #where: string;
  readonly #pages = new Map<number, { words: number; present: Uint8Array; codes: Uint32Array } | null>();

  constructor(sql: VectorCodeStatements, where: string) {
    this.#sql = sql;
    this.#where = where;
  }

  /** Sets `key`'s code from its vector (a vector of another length than the page's codes is left out, as dense search leaves it). */
  set(key: number, vector: Float32Array): void {
    const words = codeWords(vector.length);
    const index = Math.floor(key / CODE_PAGE_KEYS);
    let page = this.#page(index);
    if (!page) {
      page = {
        words,
        present: new Uint8Array(CODE_PAGE_KEYS / 8),
        codes: new Uint32Array(CODE_PAGE_KEYS * words),
      };
      this.#pages.set(index, page);
    }
    if (page.words !== words) return;
    const slot = key - index * CODE_PAGE_KEYS;
    writeSignCode(vector, page.codes, slot * words, words);
    page.present[slot >>> 3] = (page.present[slot >>> 3] as number) | (1 << (slot & 7));
  }

  /** Clears `key`'s code (its chunk is removed). */
  clear(key: number): void {
    const index = Math.floor(key / CODE_PAGE_KEYS);
    const page = this.#page(index);
    if (!page) return;
    const slot = key - index * CODE_PAGE_KEYS;
    page.present[slot >>> 3] = (page.present[slot >>> 3] as number) & ~(1 << (slot & 7));
    page.codes.fill(0, slot * page.words, (slot + 1) * page.words);
  }

  flush(): void {
    for (const [index, page] of this.#pages) {
      if (!page) continue;
      if (page.present.every((byte) => byte === 0)) this.#sql.deletePage.run(index);
      else this.#sql.putPage.run(index, page.words, page.present, toBytes(page.codes));
    }
    this.#pages.clear();
  }

  #page(index: number): { words: number; present: Uint8Array; codes: Uint32Array } | null {
    let page = this.#pages.get(index);
    if (page === undefined) {
      const row = this.#sql.page.get(index) as PageRow | undefined;
      page = row ? pageOf(index, row, this.#where) : null;
      this.#pages.set(index, page);
    }
    return page;
  }
}

/**
 * The `topK` chunks whose vectors are most cosine-similar to `query`: the codes pick the candidates
 * (`signCodeCandidates`), whose stored vectors are then scored exactly, with the scores and tie order of an exact
 * scan. With at most `max(500, 50 · topK)` vectors, every one is scored: the result is exact. `undefined` when
 * there is no code, or none of the query's length (the caller scans every vector).
 */
export function searchCodes(
  sql: VectorCodeStatements,
  { pages, words }: { pages: readonly CodePage[]; words: number },
  query: Float32Array,
  topK: number,
  where: string,
): ScoredKey[] | undefined {
  if (pages.length === 0 || words !== codeWords(query.length)) return undefined;
  const keep = Math.max(DENSE_RESCORE, DENSE_RESCORE_PER_RESULT * topK);
  const candidates = signCodeCandidates(pages, query, words, { wide: keep * DENSE_WIDE_PER_RESCORE, keep });
  const dimensions = query.length;
  const keys: number[] = [];
  const data = new Float32Array(candidates.length * dimensions);
  const norms: number[] = [];
  for (const key of candidates) {
    const blob = sql.vectorOfKey.pluck().get(key) as Buffer | undefined;
    if (!blob) continue;
    const vector = toFloat32(blob, where);
    if (vector.length !== dimensions) continue;
    data.set(vector, keys.length * dimensions);
    let sum = 0;
    for (const value of vector) sum += value * value;
    norms.push(Math.sqrt(sum));
    keys.push(key);
  }
  if (keys.length === 0) return [];
  const scores = cosineScores({ dimensions, data, norms: Float64Array.from(norms) }, Array.from(query));
  const { similarities, ids } = selectTopK(Array.from(scores), topK);
  return ids.map((id, rank) => ({ key: keys[id] as number, score: similarities[rank] as number }));
}

/** Every page of codes, ascending, with their words per code; pages of other `words` than the first are left out. */
export function readCodePages(
  sql: VectorCodeStatements,
  where: string,
): { pages: CodePage[]; words: number } {
  const pages: CodePage[] = [];
  let words = 0;
  for (const row of sql.pages.iterate() as Iterable<PageRow & { page: number }>) {
    if (words === 0) words = row.words;
    if (row.words === words) pages.push(pageOf(row.page, row, where));
  }
  return { pages, words };
}

/** Writes the code of every stored vector of the chunks (a file written before codes were kept). */
export function fillVectorCodes(sql: VectorCodeStatements, where: string): void {
  const batch = new VectorCodesBatch(sql, where);
  for (let after = 0; ; ) {
    const rows = sql.vectorsFrom.raw().all(after, 8192) as [number, Buffer][];
    if (rows.length === 0) break;
    for (const [key, blob] of rows) batch.set(key, toFloat32(blob, where));
    after = (rows.at(-1) as [number, Buffer])[0];
    batch.flush();
  }
}

interface PageRow {
  words: number;
  present: Buffer;
  codes: Buffer;
}

function pageOf(index: number, row: PageRow, where: string): CodePage & { words: number } {
  if (
    !Number.isInteger(row.words) ||
    row.words < 1 ||
    row.present.byteLength !== CODE_PAGE_KEYS / 8 ||
    row.codes.byteLength !== CODE_PAGE_KEYS * row.words * 4
  )
    throw damaged(where, `a page of vector codes (page ${index}) of the wrong size`);
  // A blob's bytes are read into a buffer of their own (not reused by the next row): viewed in place when 4-byte
  // aligned, else copied.
  const codes =
    row.codes.byteOffset % 4 === 0
      ? new Uint32Array(row.codes.buffer, row.codes.byteOffset, CODE_PAGE_KEYS * row.words)
      : new Uint32Array(new Uint8Array(row.codes).buffer);
  return { firstKey: index * CODE_PAGE_KEYS, words: row.words, present: new Uint8Array(row.present), codes };
}

function toBytes(codes: Uint32Array): Buffer {
  return Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength);
}

/** A stored vector's float32 values (a copy: the blob's bytes need not be 4-byte aligned). */
export function toFloat32(blob: Buffer, where: string): Float32Array {
  if (blob.byteLength % 4 !== 0) throw damaged(where, "a vector whose size is not a whole number of floats");
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}
