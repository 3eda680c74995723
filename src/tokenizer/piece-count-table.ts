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

  /** A table of no pieces. */
  static empty(): PieceCountTable {
    return new PieceCountTable(new Uint32Array(1), new Uint16Array(0), new Uint16Array(0));
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

  /**
   * The table's pieces merged with `sorted` (distinct pieces in code unit order, with `counts`): a piece of both
   * takes `counts`', and of this table's others the first `keep` in its order stay. The two sorted runs are merged
   * as UTF-16 code units, so no string is made of a piece of this table (a table of ~500k pieces made as strings
   * took ~1.6 s and ~200 MB at the end of every index run that wrote it).
   */
  mergedWith(
    sorted: readonly string[],
    counts: ReadonlyMap<string, number>,
    keep: number,
  ): { offsets: Uint32Array; counts: Uint16Array; text: Uint16Array } {
    let freshChars = 0;
    for (const piece of sorted) freshChars += piece.length;
    const capacity = sorted.length + Math.min(keep, this.size);
    const outOffsets = new Uint32Array(capacity + 1);
    const outCounts = new Uint16Array(capacity);
    const outText = new Uint16Array(freshChars + this.#text.length);
    let size = 0;
    let chars = 0;
    const emitFresh = (piece: string) => {
      outOffsets[size] = chars;
      outCounts[size] = counts.get(piece) as number;
      for (let at = 0; at < piece.length; at++) outText[chars + at] = piece.charCodeAt(at);
      chars += piece.length;
      size++;
    };
    let kept = 0;
    const emitOld = (index: number) => {
      if (kept >= keep) return;
      kept++;
      const start = this.#offsets[index] as number;
      const end = this.#offsets[index + 1] as number;
      outOffsets[size] = chars;
      outCounts[size] = this.#counts[index] as number;
      outText.set(this.#text.subarray(start, end), chars);
      chars += end - start;
      size++;
    };
    let next = 0;
    let index = 0;
    while (next < sorted.length || index < this.size) {
      if (index >= this.size) emitFresh(sorted[next++] as string);
      else if (next >= sorted.length) emitOld(index++);
      else {
        const order = this.#compare(sorted[next] as string, index);
        if (order < 0) emitFresh(sorted[next++] as string);
        else if (order > 0) emitOld(index++);
        else {
          emitFresh(sorted[next++] as string);
          index++;
        }
      }
    }
    outOffsets[size] = chars;
    return {
      offsets: outOffsets.subarray(0, size + 1),
      counts: outCounts.subarray(0, size),
      text: outText.subarray(0, chars),
    };
  }

  #piece(index: number): string {
    return String.fromCharCode(
      ...this.#text.subarray(this.#offsets[index] as number, this.#offsets[index + 1] as number),
    );
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
  const fresh = new Map<string, number>();
  for (let index = 0; index < pieces.length && fresh.size < MAX_TABLE_PIECES; index++) {
    const piece = pieces[index] as string;
    if (!fresh.has(piece)) fresh.set(piece, counts[index] as number);
  }
  const sorted = [...fresh.keys()].sort();
  const merged = (PieceCountTable.open(dir, name) ?? PieceCountTable.empty()).mergedWith(
    sorted,
    fresh,
    MAX_TABLE_PIECES - sorted.length,
  );
  const size = merged.counts.length;
  const offsetsBytes = 4 * (size + 1);
  const countsBytes = padded(2 * size);
  const data = Buffer.alloc(HEADER_BYTES + offsetsBytes + countsBytes + 2 * merged.text.length);
  data.writeUInt32LE(MAGIC, 0);
  data.writeUInt32LE(size, 8);
  // Written through typed arrays, as the reader reads them (in the machine's byte order).
  new Uint32Array(data.buffer, data.byteOffset + HEADER_BYTES, size + 1).set(merged.offsets);
  new Uint16Array(data.buffer, data.byteOffset + HEADER_BYTES + offsetsBytes, size).set(merged.counts);
  new Uint16Array(
    data.buffer,
    data.byteOffset + HEADER_BYTES + offsetsBytes + countsBytes,
    merged.text.length,
  ).set(merged.text);
  data.writeUInt32LE(checksum(data.subarray(8)), 4);
  const { file, prefix, suffix } = fileOf(dir, name);
  return writeCache(file, [prefix, suffix], data);
}

/** The table's file: per encoding, gpt-tokenizer version (the counts depend on both only) and file format. */
function fileOf(dir: string, name: TokenizerName): { file: string; prefix: string; suffix: string } {
  const prefix = `piece-table-${name}-`;
  const suffix = ".bin";
  const { version } = require("gpt-tokenizer/package.json") as { version: string };
  // -f2: checked by CRC-32 (the file without a format was checked by a hash of our own); writing it removes that one.
  return { file: join(dir, `${prefix}${version}-f2${suffix}`), prefix, suffix };
}

function padded(bytes: number): number {
  return (bytes + 3) & ~3;
}
