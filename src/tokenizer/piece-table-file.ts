import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { crc32 } from "node:zlib";
import { SortedPieces } from "./sorted-pieces.js";

// The file of a piece count table (piece-count-table.ts): its layout, written whole, opened by its directory and read
// block by block as lookups need them.

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
 * A table's file, opened: its directory of blocks, read and checked; a block is read and checked the first time it is
 * asked for, and a damaged one is none.
 */
export class PieceTableFile {
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
   * The table in `file`, or undefined when there is none (or a damaged or foreign file). With `whole`, the file is
   * read at once; else block by block, from the file held open (see {@link fileByBlocks}).
   */
  static open(file: string, { whole }: { whole: boolean }): PieceTableFile | undefined {
    const opened = whole ? wholeFile(file) : fileByBlocks(file);
    if (opened === undefined) return undefined;
    const table = PieceTableFile.#of(opened.read, opened.length);
    // The held file is closed with the table, or now when it holds none.
    if (opened.held !== undefined) {
      if (table) heldFiles.register(table, opened.held);
      else closeSync(opened.held);
    }
    return table;
  }

  static #of(read: ReadBytes, length: number): PieceTableFile | undefined {
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
    return new PieceTableFile(size, starts, checksums, firsts, read);
  }

  /** A table of no pieces. */
  static empty(): PieceTableFile {
    const none = SortedPieces.of(new Uint32Array(1), new Uint16Array(0), new Uint16Array(0)) as SortedPieces;
    return new PieceTableFile(0, new Uint32Array([HEADER_BYTES]), new Uint32Array(0), none, () => undefined);
  }

  /** Blocks in the file. */
  get blocks(): number {
    return this.#checksums.length;
  }

  /** The block that holds `piece` if any does: the last whose first piece is not after it; -1 when none. */
  blockFor(piece: string): number {
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
    return found;
  }

  /** The pieces of block `index`, read and checked once; null when damaged or unreadable. */
  block(index: number): SortedPieces | null {
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

/** The file's bytes of sorted pieces with their counts, in blocks of {@link BLOCK_PIECES}. */
export function encodeTable({
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
 * The file read where asked, held open while the table is in use (closed when the table is collected): an ask reads
 * a few blocks of it, each from the file it opened, even after a run saved a new table in its place.
 */
function fileByBlocks(file: string): { read: ReadBytes; length: number; held?: number } | undefined {
  let fd: number;
  let length: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    length = fstatSync(fd).size;
  } catch {
    closeSync(fd);
    return undefined;
  }
  const read: ReadBytes = (start, count) => {
    const bytes = new Uint8Array(count);
    try {
      return readSync(fd, bytes, 0, count, start) === count ? bytes : undefined;
    } catch {
      return undefined;
    }
  };
  return { read, length, held: fd };
}

function u32(bytes: Uint8Array, at: number, count: number): Uint32Array {
  return new Uint32Array(bytes.buffer, bytes.byteOffset + at, count);
}

function u16(bytes: Uint8Array, at: number, count: number): Uint16Array {
  return new Uint16Array(bytes.buffer, bytes.byteOffset + at, count);
}

function padded(bytes: number): number {
  return (bytes + 3) & ~3;
}
