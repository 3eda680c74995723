import type { TermPostings } from "./index-store.js";
import { damaged } from "./node-row.js";
import { dropFromBlock, encodePostings, lastKeyOfBlock, type PostingsList } from "./postings-codec.js";
import { decodeBlocks } from "./postings-decode.js";
import type { SqliteStatements } from "./sqlite-statements.js";

/** A term's new postings join its last block while that holds fewer than this many, else start a new block. */
export const BLOCK_POSTINGS = 128;

/**
 * A block is written with at most this many times {@link BLOCK_POSTINGS} postings: a build's group gives a common term
 * thousands (~9,500 in one block at 1.5 million chunks of 100 tokens), and an edit that takes one of them out reads
 * the block from its start. More, smaller blocks cost a query one row each.
 */
const MAX_BLOCK_FACTOR = 8;

interface BlockRow {
  first_key: number;
  count: number;
  block: Buffer;
}

/** A stored block of one term in a flush: its bytes and keys now, and the last key it was stored with. */
interface HeldBlock {
  bytes: Buffer;
  count: number;
  firstKey: number | undefined;
  lastKey: number | undefined;
  storedLastKey: number;
  changed: boolean;
}

/**
 * The postings changes of one write transaction, gathered per term and applied by {@link flush} at its end: each
 * touched term's blocks holding removed chunks are rewritten once, and its new postings written as blocks of at most
 * `MAX_BLOCK_FACTOR` × `BLOCK_POSTINGS` (or appended to its small last one while it stays within that). Chunk keys only grow, so new postings always go last. A term's df is the sum of
 * its blocks' counts, so it is exact whenever the blocks are.
 */
export class PostingsBatch {
  readonly #sql: SqliteStatements;
  readonly #where: string;
  readonly #blockPostings: number;
  /** Postings of the chunks added in this batch, by term, keys ascending. */
  readonly #added = new Map<string, PostingsList>();
  /** The distinct terms of each chunk added in this batch. */
  readonly #chunkTerms = new Map<number, string[]>();
  /** Stored chunk keys removed, by term. */
  readonly #removed = new Map<string, number[]>();
  /**
   * Every term the table holds, when the store knows them all (it found the table empty and no other connection has
   * written since): a term not in it has no block, so its new postings start one without asking for its last block.
   * The terms written here are added. A term missing from it would only start a block beside a small last one; a term
   * in it that has no block (a write rolled back) is only asked for.
   */
  readonly #termsWithBlocks: Set<string> | undefined;
  #documents = 0;
  #totalLength = 0;

  constructor(
    sql: SqliteStatements,
    where: string,
    blockPostings = BLOCK_POSTINGS,
    termsWithBlocks?: Set<string>,
  ) {
    this.#sql = sql;
    this.#where = where;
    this.#blockPostings = blockPostings;
    this.#termsWithBlocks = termsWithBlocks;
  }

  /** Adds the postings of the chunk `key` (newer than every chunk before it) from its terms. */
  add(key: number, terms: readonly string[]): void {
    // One pass: a term's list ends with this chunk's posting from its first occurrence on (no chunk added after it
    // yet), so a later occurrence counts there.
    const length = terms.length;
    const distinct: string[] = [];
    for (const term of terms) {
      let list = this.#added.get(term);
      if (!list) {
        list = { keys: [], frequencies: [], lengths: [] };
        this.#added.set(term, list);
      }
      const last = list.keys.length - 1;
      if (last >= 0 && list.keys[last] === key) {
        list.frequencies[last] = (list.frequencies[last] as number) + 1;
        continue;
      }
      list.keys.push(key);
      list.frequencies.push(1);
      list.lengths.push(length);
      distinct.push(term);
    }
    this.#chunkTerms.set(key, distinct);
    this.#documents++;
    this.#totalLength += length;
  }

  /**
   * Removes the postings of the chunk `key`: one added in this batch, or a stored one with its terms (as the
   * analyzer gives them again from its node; every one must be found in the term's blocks).
   */
  remove(key: number, length: number, storedTerms: () => readonly string[]): void {
    this.#documents--;
    this.#totalLength -= length;
    const added = this.#chunkTerms.get(key);
    if (added) {
      this.#chunkTerms.delete(key);
      for (const term of added) {
        const list = this.#added.get(term) as PostingsList;
        const index = list.keys.lastIndexOf(key);
        for (const field of [list.keys, list.frequencies, list.lengths]) field.splice(index, 1);
        if (list.keys.length === 0) this.#added.delete(term);
      }
      return;
    }
    for (const term of new Set(storedTerms())) {
      const keys = this.#removed.get(term);
      if (keys) keys.push(key);
      else this.#removed.set(term, [key]);
    }
  }

  /**
   * Writes the gathered changes, one term at a time: the blocks holding its removed chunks lose them, its new
   * postings join its last block (when small) or start one, and each touched block is written once: an edited file
   * that keeps a rare term rewrites that term's one block once, not once for the removal and once for the addition.
   * The blocks are changed as bytes (`dropFromBlock`, appended bytes), never decoded into lists.
   */
  flush(): void {
    const sql = this.#sql;
    for (const term of new Set([...this.#removed.keys(), ...this.#added.keys()])) {
      const blocks = new Map<number, HeldBlock>();
      const removed = this.#removed.get(term);
      if (removed) this.#removeKeys(term, removed, blocks);
      const added = this.#added.get(term);
      if (added) {
        const known = this.#termsWithBlocks;
        const last =
          known && !known.has(term) ? undefined : (sql.lastBlock.get(term) as BlockRow | undefined);
        known?.add(term);
        // A stored last block is decoded only when it is small enough to take them.
        const held =
          last &&
          (blocks.get(last.first_key) ?? (last.count < this.#blockPostings ? this.#hold(last) : undefined));
        const most = this.#blockPostings * MAX_BLOCK_FACTOR;
        if (
          last &&
          held &&
          held.count > 0 &&
          held.count < this.#blockPostings &&
          held.count + added.keys.length <= most
        ) {
          const appended = encodePostings(added, 0, added.keys.length, held.lastKey);
          blocks.set(last.first_key, {
            ...held,
            bytes: Buffer.concat([held.bytes, appended]),
            count: held.count + added.keys.length,
            lastKey: added.keys.at(-1),
            changed: true,
          });
        } else {
          for (let from = 0; from < added.keys.length; from += most) {
            const to = Math.min(from + most, added.keys.length);
            sql.insertBlock.run(term, added.keys[from], to - from, encodePostings(added, from, to));
          }
        }
      }
      for (const [storedFirstKey, { bytes, count, firstKey, changed }] of blocks) {
        if (!changed) continue;
        if (firstKey === storedFirstKey) {
          sql.updateBlock.run(count, bytes, term, storedFirstKey);
          continue;
        }
        sql.deleteBlock.run(term, storedFirstKey);
        if (count > 0) sql.insertBlock.run(term, firstKey, count, bytes);
      }
    }
    if (this.#documents !== 0 || this.#totalLength !== 0)
      sql.addStats.run(this.#documents, this.#totalLength);
  }

  /** Takes `keys` out of the blocks of `term` that hold them (kept in `blocks`, by their stored first key). */
  #removeKeys(term: string, keys: number[], blocks: Map<number, HeldBlock>): void {
    const gone = Int32Array.from(keys).sort();
    // An edited file's chunks have neighbouring keys, mostly in one block of each term: a key up to the last of the
    // block found for the key before it is in that block (or nowhere), so it needs no query of its own.
    let covered = Number.NEGATIVE_INFINITY;
    let removed = 0;
    for (const key of gone) {
      if (key <= covered) continue;
      const row = this.#sql.blockHolding.get(term, key) as BlockRow | undefined;
      if (!row) continue;
      const held = blocks.get(row.first_key);
      if (held) {
        covered = held.storedLastKey;
        continue;
      }
      const changed = dropFromBlock(row.block, gone);
      if (!changed || changed.count + changed.dropped !== row.count)
        throw damaged(this.#where, "a postings block that is not readable");
      blocks.set(row.first_key, {
        bytes: changed.bytes,
        count: changed.count,
        firstKey: changed.firstKey,
        lastKey: changed.lastKey,
        storedLastKey: changed.storedLastKey,
        changed: changed.dropped > 0,
      });
      covered = changed.storedLastKey;
      removed += changed.dropped;
    }
    if (removed !== keys.length) throw damaged(this.#where, "a chunk whose postings are missing");
  }

  /** A stored block as it is, to append to. */
  #hold(row: BlockRow): HeldBlock {
    const lastKey = lastKeyOfBlock(row.block, row.count);
    if (lastKey === undefined) throw damaged(this.#where, "a postings block that is not readable");
    return {
      bytes: row.block,
      count: row.count,
      firstKey: row.first_key,
      lastKey,
      storedLastKey: lastKey,
      changed: false,
    };
  }
}

/** One stored block of a term: how many postings it holds, and its bytes. */
export interface PostingsBlockRow {
  count: number;
  block: Uint8Array;
}

/**
 * The postings of one term from its blocks (in key order), or undefined when it has none: decoded straight into
 * typed arrays sized by the blocks' counts. A block that does not hold exactly its `count` postings is damage.
 */
export function readPostings(
  blocks: readonly PostingsBlockRow[],
  where: string,
  /** Test seam: decoded in JavaScript, as where WebAssembly does not run. */
  { javascript = false }: { javascript?: boolean } = {},
): TermPostings | undefined {
  if (blocks.length === 0) return undefined;
  const decoded = decodeBlocks(blocks, { javascript });
  if (typeof decoded !== "string") return decoded;
  throw damaged(
    where,
    `a postings block that ${decoded === "not readable" ? "is not readable" : `holds ${decoded}`}`,
  );
}

/** One stored block of a term with its first key. */
export interface KeyedBlockRow extends PostingsBlockRow {
  first_key: number;
}

/**
 * The postings of one term in the chunks `keys` (ascending) names, keys ascending; chunks without the term are left
 * out. `blockHolding(key)` gives the term's last block whose first key is not above `key`; each block is read and
 * decoded once, for every asked key it covers. A block that does not hold exactly its `count` postings is damage.
 */
export function readPostingsAt(
  blockHolding: (key: number) => KeyedBlockRow | undefined,
  keys: ArrayLike<number>,
  where: string,
): TermPostings {
  const found = { keys: [] as number[], frequencies: [] as number[], lengths: [] as number[] };
  let next = 0;
  let previous: number | undefined;
  while (next < keys.length) {
    const row = blockHolding(keys[next] as number);
    // Before the term's first block, or past the end of the block read last (and before the next one): not held.
    if (row === undefined || row.first_key === previous) {
      next++;
      continue;
    }
    previous = row.first_key;
    const block = readPostings([row], where) as TermPostings;
    const last = block.keys[block.keys.length - 1] as number;
    let at = 0;
    for (; next < keys.length && (keys[next] as number) <= last; next++) {
      const key = keys[next] as number;
      while ((block.keys[at] as number) < key) at++;
      if (block.keys[at] !== key) continue;
      found.keys.push(key);
      found.frequencies.push(block.frequencies[at] as number);
      found.lengths.push(block.lengths[at] as number);
    }
  }
  return found;
}
