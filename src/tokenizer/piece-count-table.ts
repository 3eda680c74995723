import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { writeCache } from "../util/v8-code-cache.js";
import { checksum } from "./piece-count-file.js";
import type { TokenizerName } from "./tokenizer.js";

const require = createRequire(import.meta.url);

/**
 * The most pieces the table keeps (~20 MB at most). The bench's 30 MB corpus has ~130k distinct pieces, its 300 MB
 * one a few hundred thousand.
 */
export const MAX_TABLE_PIECES = 1 << 20;

// "RSPT", a checksum of the rest, the number of pieces; then their UTF-16 offsets (n + 1), their counts (n), padded
// to 4 bytes, and their UTF-16 text, pieces sorted by code unit.
const MAGIC = 0x54505352;
const HEADER_BYTES = 12;

/**
 * Every piece count earlier runs kept, looked up by binary search in the file's bytes (nothing is decoded or put in
 * a map): a run meets a piece its memo lacks and looks it up here instead of loading a rank table (~70 ms) to count
 * it again. The saved recent pieces (piece-count-file.ts, loaded into the memo by every run) hold only what this
 * table lacks, the pieces asks counted since an index last wrote it: loading 65,536 of them into a map took an
 * unchanged ask ~30 ms that looking them up here does not.
 */
export class PieceCountTable {
  readonly #offsets: Uint32Array;
  readonly #counts: Uint16Array;
  readonly #text: Uint16Array;

  private constructor(offsets: Uint32Array, counts: Uint16Array, text: Uint16Array) {
    this.#offsets = offsets;
    this.#counts = counts;
    this.#text = text;
  }

  /** The table of `name`'s counts in `dir`, or undefined when there is none (or a damaged or foreign file). */
  static open(dir: string, name: TokenizerName): PieceCountTable | undefined {
    let data: Buffer;
    try {
      data = readFileSync(fileOf(dir, name).file);
    } catch {
      return undefined;
    }
    if (data.length < HEADER_BYTES || data.readUInt32LE(0) !== MAGIC) return undefined;
    const size = data.readUInt32LE(8);
    const offsetsBytes = 4 * (size + 1);
    const countsBytes = padded(2 * size);
    if (data.length < HEADER_BYTES + offsetsBytes + countsBytes) return undefined;
    if (data.readUInt32LE(4) !== checksum(data.subarray(8))) return undefined;
    // Typed arrays need aligned bytes: a copy when the file's buffer is not (a small file in Node's pool).
    const bytes = data.byteOffset % 4 === 0 ? data : Buffer.from(data);
    const base = bytes.byteOffset + HEADER_BYTES;
    const offsets = new Uint32Array(bytes.buffer, base, size + 1);
    const counts = new Uint16Array(bytes.buffer, base + offsetsBytes, size);
    const textBytes = bytes.length - HEADER_BYTES - offsetsBytes - countsBytes;
    const text = new Uint16Array(bytes.buffer, base + offsetsBytes + countsBytes, textBytes >>> 1);
    if (offsets[0] !== 0 || offsets[size] !== text.length) return undefined;
    return new PieceCountTable(offsets, counts, text);
  }

  /** Pieces held. */
  get size(): number {
    return this.#counts.length;
  }

  /** The count of `piece`, or undefined when the table does not hold it. */
  get(piece: string): number | undefined {
    let low = 0;
    let high = this.#counts.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = this.#compare(piece, middle);
      if (order === 0) return this.#counts[middle];
      if (order < 0) high = middle - 1;
      else low = middle + 1;
    }
    return undefined;
  }

  /** Every piece held with its count, in the table's order. */
  entries(): { pieces: string[]; counts: number[] } {
    const pieces: string[] = [];
    const counts: number[] = [];
    for (let index = 0; index < this.#counts.length; index++) {
      pieces.push(this.#piece(index));
      counts.push(this.#counts[index] as number);
    }
    return { pieces, counts };
  }

  #piece(index: number): string {
    const start = this.#offsets[index] as number;
    const end = this.#offsets[index + 1] as number;
    let piece = "";
    for (let at = start; at < end; at++) piece += String.fromCharCode(this.#text[at] as number);
    return piece;
  }

  // Code unit order, as Array.prototype.sort orders strings.
  #compare(piece: string, index: number): number {
    const start = this.#offsets[index] as number;
    const length = (this.#offsets[index + 1] as number) - start;
    const shared = Math.min(piece.length, length);
    for (let at = 0; at < shared; at++) {
      const difference = piece.charCodeAt(at) - (this.#text[start + at] as number);
      if (difference !== 0) return difference;
    }
    return piece.length - length;
  }
}

/**
 * Writes the table of `name` in `dir`: `pieces` (with `counts`) and, up to {@link MAX_TABLE_PIECES}, the pieces of the
 * table there already (another folder's pieces stay). Returns false when it could not be written.
 */
export function savePieceCountTable(
  dir: string,
  name: TokenizerName,
  pieces: readonly string[],
  counts: ArrayLike<number>,
): boolean {
  const merged = new Map<string, number>();
  for (let index = 0; index < pieces.length && merged.size < MAX_TABLE_PIECES; index++)
    merged.set(pieces[index] as string, counts[index] as number);
  const old = PieceCountTable.open(dir, name)?.entries();
  if (old) {
    for (let index = 0; index < old.pieces.length && merged.size < MAX_TABLE_PIECES; index++) {
      const piece = old.pieces[index] as string;
      if (!merged.has(piece)) merged.set(piece, old.counts[index] as number);
    }
  }
  const sorted = [...merged.keys()].sort();
  const size = sorted.length;
  let chars = 0;
  for (const piece of sorted) chars += piece.length;
  const offsetsBytes = 4 * (size + 1);
  const countsBytes = padded(2 * size);
  const data = Buffer.alloc(HEADER_BYTES + offsetsBytes + countsBytes + 2 * chars);
  data.writeUInt32LE(MAGIC, 0);
  data.writeUInt32LE(size, 8);
  let offset = 0;
  for (const [index, piece] of sorted.entries()) {
    data.writeUInt32LE(offset, HEADER_BYTES + 4 * index);
    data.writeUInt16LE(merged.get(piece) as number, HEADER_BYTES + offsetsBytes + 2 * index);
    const textStart = HEADER_BYTES + offsetsBytes + countsBytes + 2 * offset;
    for (let at = 0; at < piece.length; at++) data.writeUInt16LE(piece.charCodeAt(at), textStart + 2 * at);
    offset += piece.length;
  }
  data.writeUInt32LE(offset, HEADER_BYTES + 4 * size);
  data.writeUInt32LE(checksum(data.subarray(8)), 4);
  const { file, prefix, suffix } = fileOf(dir, name);
  return writeCache(file, [prefix, suffix], data);
}

/** The table's file: per encoding and gpt-tokenizer version (the counts depend on both only). */
function fileOf(dir: string, name: TokenizerName): { file: string; prefix: string; suffix: string } {
  const prefix = `piece-table-${name}-`;
  const suffix = ".bin";
  const { version } = require("gpt-tokenizer/package.json") as { version: string };
  return { file: join(dir, `${prefix}${version}${suffix}`), prefix, suffix };
}

function padded(bytes: number): number {
  return (bytes + 3) & ~3;
}
