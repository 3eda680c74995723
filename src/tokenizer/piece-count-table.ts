import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";
import { crc32 } from "node:zlib";
import { writeCache } from "../util/v8-code-cache.js";
import type { TokenizerName } from "./tokenizer.js";

const require = createRequire(import.meta.url);

/**
 * The most pieces the table keeps (~20 MB at most). The bench's 30 MB corpus has ~130k distinct pieces, its 300 MB
 * one a few hundred thousand.
 */
export const MAX_TABLE_PIECES = 1 << 20;

/**
 * Pieces per block of the file. A lookup reads and checks one block (~4 KB) after the directory of blocks, not the
 * whole file: reading and checking a 12.5 MB table took every ask ~15–20 ms, however few pieces it looked up.
 */
export const BLOCK_PIECES = 128;

// f3. Header: "RSPT", the CRC-32 of the rest of the header and the directory, the number of pieces, of blocks, the
// directory's bytes, 0. Directory: each block's first byte in the file (blocks + 1: the last is the file's length),
// each block's CRC-32, the UTF-16 offsets (blocks + 1) of the blocks' first pieces and those pieces' text, padded to
// 4 bytes. Block: its number of pieces (n), their UTF-16 offsets (n + 1), counts (n, padded to 4 bytes) and text
// (padded to 4 bytes). Pieces are sorted by code unit across the file. Typed arrays in the machine's byte order.
const MAGIC = 0x54505352;
const HEADER_BYTES = 24;

/** Bytes of the table's file from `start`, or undefined when they cannot be read whole. */
type ReadBytes = (start: number, length: number) => Uint8Array | undefined;

/**
 * Every piece count earlier runs kept, looked up by binary search in the file's bytes (nothing is decoded or put in
 * a map): a run meets a piece its memo lacks and looks it up here instead of loading a rank table (~70 ms) to count
 * it again. The saved recent pieces (piece-count-file.ts, loaded into the memo by every run) hold only what this
 * table lacks, the pieces asks counted since an index last wrote it: loading 65,536 of them into a map took an
 * unchanged ask ~30 ms that looking them up here does not.
 *
 * Opened, it holds the directory of blocks; a block is read and checked the first time a lookup needs it. A block
 * that is damaged answers nothing (its pieces are counted again).
 */
export class PieceCountTable {
  /** Pieces held, as the file says. */
  readonly size: number;
  readonly #starts: Uint32Array;
  readonly #checksums: Uint32Array;
  /** The first piece of each block. */
  readonly #firsts: SortedPieces;
  /** Blocks read: null when damaged or unreadable. */
  readonly #blocks: (SortedPieces | null | undefined)[];
  readonly #read: ReadBytes;

  private constructor(
    size: number,
    starts: Uint32Array,
    checksums: Uint32Array,
    firsts: SortedPieces,
    read: ReadBytes,
  ) {
    this.size = size;
    this.#starts = starts;
    this.#checksums = checksums;
    this.#firsts = firsts;
    this.#blocks = new Array(checksums.length);
    this.#read = read;
  }

  /**
   * The table of `name`'s counts in `dir`, or undefined when there is none (or a damaged or foreign file). With
   * `whole`, the file is read at once (to merge it into a new one); else block by block as lookups need them, from
   * the file held open when `hold` (by default in the main thread, see {@link fileByBlocks}).
   */
  static open(
    dir: string,
    name: TokenizerName,
    { whole = false, hold = isMainThread }: { whole?: boolean; hold?: boolean } = {},
  ): PieceCountTable | undefined {
    const file = fileOf(dir, name).file;
    const opened = whole ? wholeFile(file) : fileByBlocks(file, hold);
    if (opened === undefined) return undefined;
    const table = PieceCountTable.#of(opened.read, opened.length);
    // The held file is closed with the table, or now when it holds none.
    if (opened.held !== undefined) {
      if (table) heldFiles.register(table, opened.held);
      else closeSync(opened.held);
    }
    return table;
  }

  static #of(read: ReadBytes, length: number): PieceCountTable | undefined {
    const header = read(0, HEADER_BYTES);
    if (header === undefined) return undefined;
    const [magic, checksumOfRest, size, count, directoryBytes] = [...u32(header, 0, 5)] as number[] as [
      number,
      number,
      number,
      number,
      number,
    ];
    if (magic !== MAGIC || !directoryFits(count, directoryBytes, length)) return undefined;
    const directory = read(HEADER_BYTES, directoryBytes);
    if (directory === undefined) return undefined;
    if (checksumOfRest !== crc32(directory, crc32(header.subarray(8)))) return undefined;
    const starts = u32(directory, 0, count + 1);
    const checksums = u32(directory, 4 * (count + 1), count);
    const firstOffsets = u32(directory, 4 * (2 * count + 1), count + 1);
    const textStart = 4 * (3 * count + 2);
    const firstText = u16(directory, textStart, (directoryBytes - textStart) >>> 1);
    if (starts[0] !== HEADER_BYTES + directoryBytes || starts[count] !== length) return undefined;
    for (let block = 0; block < count; block++) {
      const start = starts[block] as number;
      if (start % 4 !== 0 || (starts[block + 1] as number) <= start) return undefined;
    }
    const firsts = SortedPieces.of(firstOffsets, new Uint16Array(count), firstText);
    if (firsts === undefined) return undefined;
    return new PieceCountTable(size, starts, checksums, firsts, read);
  }

  /** A table of no pieces. */
  static empty(): PieceCountTable {
    const none = SortedPieces.of(new Uint32Array(1), new Uint16Array(0), new Uint16Array(0)) as SortedPieces;
    return new PieceCountTable(0, new Uint32Array([HEADER_BYTES]), new Uint32Array(0), none, () => undefined);
  }

  /** The count of `piece`, or undefined when the table does not hold it (or its block cannot be read). */
  get(piece: string): number | undefined {
    // The last block whose first piece is not after `piece`.
    let low = 0;
    let high = this.#firsts.size - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (this.#firsts.compare(piece, middle) >= 0) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    if (found < 0) return undefined;
    const block = this.#block(found);
    if (!block) return undefined;
    const index = block.indexOf(piece);
    return index < 0 ? undefined : block.counts[index];
  }

  /** Every piece held with its count, in the table's order (a damaged block's left out). */
  entries(): { pieces: string[]; counts: number[] } {
    const pieces: string[] = [];
    const counts: number[] = [];
    for (const block of this.#readableBlocks()) {
      for (let index = 0; index < block.size; index++) {
        pieces.push(block.piece(index));
        counts.push(block.counts[index] as number);
      }
    }
    return { pieces, counts };
  }

  /**
   * The table's pieces merged with `sorted` (distinct pieces in code unit order, with `counts`): a piece of both
   * takes `counts`', and of this table's others the first `keep` in its order stay (a damaged block's are dropped).
   * The two sorted runs are merged as UTF-16 code units, so no string is made of a piece of this table (a table of
   * ~500k pieces made as strings took ~1.6 s and ~200 MB at the end of every index run that wrote it).
   */
  mergedWith(
    sorted: readonly string[],
    counts: ReadonlyMap<string, number>,
    keep: number,
  ): { offsets: Uint32Array; counts: Uint16Array; text: Uint16Array } {
    const blocks = this.#readableBlocks();
    let held = 0;
    let heldChars = 0;
    for (const block of blocks) {
      held += block.size;
      heldChars += block.text.length;
    }
    let freshChars = 0;
    for (const piece of sorted) freshChars += piece.length;
    const capacity = sorted.length + Math.min(keep, held);
    const outOffsets = new Uint32Array(capacity + 1);
    const outCounts = new Uint16Array(capacity);
    const outText = new Uint16Array(freshChars + heldChars);
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
    const emitOld = (block: SortedPieces, index: number) => {
      if (kept >= keep) return;
      kept++;
      const start = block.offsets[index] as number;
      const end = block.offsets[index + 1] as number;
      outOffsets[size] = chars;
      outCounts[size] = block.counts[index] as number;
      outText.set(block.text.subarray(start, end), chars);
      chars += end - start;
      size++;
    };
    let next = 0;
    for (const block of blocks) {
      for (let index = 0; index < block.size; ) {
        const order = next < sorted.length ? block.compare(sorted[next] as string, index) : 1;
        if (order < 0) emitFresh(sorted[next++] as string);
        else if (order > 0) emitOld(block, index++);
        else {
          emitFresh(sorted[next++] as string);
          index++;
        }
      }
    }
    while (next < sorted.length) emitFresh(sorted[next++] as string);
    outOffsets[size] = chars;
    return {
      offsets: outOffsets.subarray(0, size + 1),
      counts: outCounts.subarray(0, size),
      text: outText.subarray(0, chars),
    };
  }

  #readableBlocks(): SortedPieces[] {
    const blocks: SortedPieces[] = [];
    for (let index = 0; index < this.#checksums.length; index++) {
      const block = this.#block(index);
      if (block) blocks.push(block);
    }
    return blocks;
  }

  #block(index: number): SortedPieces | null {
    let block = this.#blocks[index];
    if (block !== undefined) return block;
    const start = this.#starts[index] as number;
    const bytes = this.#read(start, (this.#starts[index + 1] as number) - start);
    block = bytes === undefined || crc32(bytes) !== this.#checksums[index] ? null : blockOf(bytes);
    // A block must begin with the piece the directory says it does, or a lookup would search the wrong one.
    if (block && (block.size === 0 || this.#firsts.compareAt(index, block, 0) !== 0)) block = null;
    this.#blocks[index] = block;
    return block;
  }
}

/** Pieces sorted by code unit, with their counts: their UTF-16 text and its offsets (one more than pieces). */
class SortedPieces {
  readonly offsets: Uint32Array;
  readonly counts: Uint16Array;
  readonly text: Uint16Array;

  private constructor(offsets: Uint32Array, counts: Uint16Array, text: Uint16Array) {
    this.offsets = offsets;
    this.counts = counts;
    this.text = text;
  }

  /** The pieces, or undefined when the offsets do not fit the text (a damaged or foreign file). */
  static of(offsets: Uint32Array, counts: Uint16Array, text: Uint16Array): SortedPieces | undefined {
    if (offsets.length !== counts.length + 1 || offsets[0] !== 0) return undefined;
    for (let index = 1; index < offsets.length; index++) {
      if ((offsets[index] as number) < (offsets[index - 1] as number)) return undefined;
    }
    // Text is padded to 4 bytes: at most one code unit past the last piece.
    const end = offsets[counts.length] as number;
    if (end > text.length || text.length - end > 1) return undefined;
    return new SortedPieces(offsets, counts, text.subarray(0, end));
  }

  get size(): number {
    return this.counts.length;
  }

  /** The index of `piece`, or -1. */
  indexOf(piece: string): number {
    let low = 0;
    let high = this.size - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = this.compare(piece, middle);
      if (order === 0) return middle;
      if (order < 0) high = middle - 1;
      else low = middle + 1;
    }
    return -1;
  }

  piece(index: number): string {
    return String.fromCharCode(
      ...this.text.subarray(this.offsets[index] as number, this.offsets[index + 1] as number),
    );
  }

  // Code unit order, as Array.prototype.sort orders strings.
  compare(piece: string, index: number): number {
    const start = this.offsets[index] as number;
    const length = (this.offsets[index + 1] as number) - start;
    const shared = Math.min(piece.length, length);
    for (let at = 0; at < shared; at++) {
      const difference = piece.charCodeAt(at) - (this.text[start + at] as number);
      if (difference !== 0) return difference;
    }
    return piece.length - length;
  }

  /** Whether this one's piece `index` and `other`'s piece `at` differ (0 when equal). */
  compareAt(index: number, other: SortedPieces, at: number): number {
    const a = this.text.subarray(this.offsets[index] as number, this.offsets[index + 1] as number);
    const b = other.text.subarray(other.offsets[at] as number, other.offsets[at + 1] as number);
    if (a.length !== b.length) return a.length - b.length;
    for (let unit = 0; unit < a.length; unit++)
      if (a[unit] !== b[unit]) return (a[unit] as number) - (b[unit] as number);
    return 0;
  }
}

/** A block's pieces from its bytes, or null when they do not hold one. */
function blockOf(bytes: Uint8Array): SortedPieces | null {
  if (bytes.length < 8) return null;
  const size = u32(bytes, 0, 1)[0] as number;
  const offsetsBytes = 4 * (size + 1);
  const countsBytes = padded(2 * size);
  if (bytes.length < 4 + offsetsBytes + countsBytes) return null;
  const textBytes = bytes.length - 4 - offsetsBytes - countsBytes;
  if (textBytes % 2 !== 0) return null;
  return (
    SortedPieces.of(
      u32(bytes, 4, size + 1),
      u16(bytes, 4 + offsetsBytes, size),
      u16(bytes, 4 + offsetsBytes + countsBytes, textBytes >>> 1),
    ) ?? null
  );
}

/** Whether a header's directory of `blocks` blocks and `bytes` bytes can be in a file of `length` bytes. */
function directoryFits(blocks: number, bytes: number, length: number): boolean {
  return bytes % 4 === 0 && bytes >= 4 * (3 * blocks + 2) && HEADER_BYTES + bytes <= length;
}

/** The file read at once. */
function wholeFile(file: string): { read: ReadBytes; length: number; held?: number } | undefined {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch {
    return undefined;
  }
  // Typed arrays need aligned bytes: a copy when the file's buffer is not (a small file in Node's pool).
  const bytes = data.byteOffset % 4 === 0 ? data : Buffer.from(data);
  return {
    read: (start, length) =>
      start + length <= bytes.length ? bytes.subarray(start, start + length) : undefined,
    length: bytes.length,
  };
}

/** Closes the file of a table that is no longer used. */
const heldFiles = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
});

/**
 * The file read where asked. The main thread holds it open while the table is in use (closed when the table is
 * collected; an ask opens it once, not once per block). A worker thread opens it again for each read: a worker's end
 * would leave a held file open, since the registry's callbacks do not run then, and a thread that runs a build
 * reads most of the table anyway. Bytes of another file than the one opened (a run saved the table since) are none.
 */
function fileByBlocks(
  file: string,
  hold: boolean,
): { read: ReadBytes; length: number; held?: number } | undefined {
  const identity = (fd: number) => {
    const stat = fstatSync(fd);
    return { key: `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`, size: stat.size };
  };
  const readAt = (fd: number, start: number, count: number) => {
    const bytes = new Uint8Array(count);
    return readSync(fd, bytes, 0, count, start) === count ? bytes : undefined;
  };
  let fd: number;
  let opened: { key: string; size: number };
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    opened = identity(fd);
  } catch {
    closeSync(fd);
    return undefined;
  }
  if (hold) {
    const read: ReadBytes = (start, count) => {
      try {
        return readAt(fd, start, count);
      } catch {
        return undefined;
      }
    };
    return { read, length: opened.size, held: fd };
  }
  closeSync(fd);
  const read: ReadBytes = (start, count) => {
    try {
      const again = openSync(file, "r");
      try {
        return identity(again).key === opened.key ? readAt(again, start, count) : undefined;
      } finally {
        closeSync(again);
      }
    } catch {
      return undefined;
    }
  };
  return { read, length: opened.size };
}

function u32(bytes: Uint8Array, at: number, count: number): Uint32Array {
  return new Uint32Array(bytes.buffer, bytes.byteOffset + at, count);
}

function u16(bytes: Uint8Array, at: number, count: number): Uint16Array {
  return new Uint16Array(bytes.buffer, bytes.byteOffset + at, count);
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
  const old = PieceCountTable.open(dir, name, { whole: true }) ?? PieceCountTable.empty();
  const data = encodeTable(old.mergedWith(sorted, fresh, MAX_TABLE_PIECES - sorted.length));
  const { file, prefix, suffix } = fileOf(dir, name);
  return writeCache(file, [prefix, suffix], data);
}

/** The file's bytes of sorted pieces with their counts, in blocks of {@link BLOCK_PIECES}. */
function encodeTable({
  offsets,
  counts,
  text,
}: {
  offsets: Uint32Array;
  counts: Uint16Array;
  text: Uint16Array;
}): Buffer {
  const size = counts.length;
  const blocks = Math.ceil(size / BLOCK_PIECES);
  const firstOf = (block: number) => block * BLOCK_PIECES;
  const lastOf = (block: number) => Math.min(size, (block + 1) * BLOCK_PIECES);
  let firstChars = 0;
  for (let block = 0; block < blocks; block++) {
    const first = firstOf(block);
    firstChars += (offsets[first + 1] as number) - (offsets[first] as number);
  }
  const directoryBytes = 4 * (3 * blocks + 2) + padded(2 * firstChars);
  const blockBytes = (block: number) => {
    const n = lastOf(block) - firstOf(block);
    const chars = (offsets[lastOf(block)] as number) - (offsets[firstOf(block)] as number);
    return 4 + 4 * (n + 1) + padded(2 * n) + padded(2 * chars);
  };
  let length = HEADER_BYTES + directoryBytes;
  for (let block = 0; block < blocks; block++) length += blockBytes(block);
  const data = Buffer.alloc(length);
  const starts = u32(data, HEADER_BYTES, blocks + 1);
  const checksums = u32(data, HEADER_BYTES + 4 * (blocks + 1), blocks);
  const firstOffsets = u32(data, HEADER_BYTES + 4 * (2 * blocks + 1), blocks + 1);
  const firstText = u16(data, HEADER_BYTES + 4 * (3 * blocks + 2), firstChars);
  let at = HEADER_BYTES + directoryBytes;
  let chars = 0;
  for (let block = 0; block < blocks; block++) {
    const first = firstOf(block);
    const n = lastOf(block) - first;
    const base = offsets[first] as number;
    const end = offsets[lastOf(block)] as number;
    starts[block] = at;
    const pieceStart = offsets[first] as number;
    const pieceEnd = offsets[first + 1] as number;
    firstOffsets[block] = chars;
    firstText.set(text.subarray(pieceStart, pieceEnd), chars);
    chars += pieceEnd - pieceStart;
    u32(data, at, 1)[0] = n;
    const blockOffsets = u32(data, at + 4, n + 1);
    for (let index = 0; index <= n; index++) blockOffsets[index] = (offsets[first + index] as number) - base;
    u16(data, at + 4 + 4 * (n + 1), n).set(counts.subarray(first, first + n));
    u16(data, at + 4 + 4 * (n + 1) + padded(2 * n), end - base).set(text.subarray(base, end));
    const bytes = blockBytes(block);
    checksums[block] = crc32(data.subarray(at, at + bytes));
    at += bytes;
  }
  starts[blocks] = at;
  firstOffsets[blocks] = chars;
  const header = u32(data, 0, 5);
  header[0] = MAGIC;
  header[2] = size;
  header[3] = blocks;
  header[4] = directoryBytes;
  header[1] = crc32(
    data.subarray(HEADER_BYTES, HEADER_BYTES + directoryBytes),
    crc32(data.subarray(8, HEADER_BYTES)),
  );
  return data;
}

/** The table's file: per encoding, gpt-tokenizer version (the counts depend on both only) and file format. */
function fileOf(dir: string, name: TokenizerName): { file: string; prefix: string; suffix: string } {
  const prefix = `piece-table-${name}-`;
  const suffix = ".bin";
  const { version } = require("gpt-tokenizer/package.json") as { version: string };
  // -f3: in checked blocks (-f2 was one block, read and checked whole; the file without a format was checked by a hash
  // of our own); writing it removes those.
  return { file: join(dir, `${prefix}${version}-f3${suffix}`), prefix, suffix };
}

function padded(bytes: number): number {
  return (bytes + 3) & ~3;
}
