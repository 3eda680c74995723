import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { isAscii } from "../util/is-ascii.js";
import { writeCache } from "../util/v8-code-cache.js";
import { type AsciiRanks, agreesOnProbes, asciiCounter } from "./ascii-piece-count.js";
import { checksum } from "./piece-count-file.js";
import type { TokenizerName } from "./tokenizer.js";

const require = createRequire(import.meta.url);

// "RSAR", a checksum of the rest, the number of tokens n; then their byte offsets (n + 1), their ranks (n), the
// ranks of the two-character tokens (128 × 128, -1: none), and their ASCII text, tokens sorted by byte.
const MAGIC = 0x52415352;
const HEADER_BYTES = 12;
const PAIRS = 128 * 128;

/**
 * The ASCII tokens of an encoding's rank table with their ranks, in a file of the tokenizer cache, looked up by
 * binary search in its bytes. A run that meets an ASCII piece no earlier run counted (a new word in a question, a
 * line added to a file) counts it by merging over this file (~1 MB, read in ~1 ms) instead of loading the
 * encoding's whole rank table (gpt-tokenizer's module: ~50 ms, a quarter of such an ask). Written from the loaded
 * table by the first run that loads it, and trusted only when the counts it gives agree with gpt-tokenizer's on the
 * probe texts; read as untrusted input (a damaged, truncated or foreign file is not used).
 */
export class AsciiRankFile implements AsciiRanks {
  readonly pairs: Int32Array;
  readonly #offsets: Uint32Array;
  readonly #ranks: Uint32Array;
  readonly #text: Uint8Array;

  private constructor(offsets: Uint32Array, ranks: Uint32Array, pairs: Int32Array, text: Uint8Array) {
    this.#offsets = offsets;
    this.#ranks = ranks;
    this.pairs = pairs;
    this.#text = text;
  }

  /** The file of `name` in `dir`, or undefined when there is none (or a damaged or foreign one). */
  static open(dir: string, name: TokenizerName): AsciiRankFile | undefined {
    let data: Buffer;
    try {
      data = readFileSync(fileOf(dir, name).file);
    } catch {
      return undefined;
    }
    return AsciiRankFile.#parse(data);
  }

  static #parse(data: Buffer): AsciiRankFile | undefined {
    if (data.length < HEADER_BYTES || data.readUInt32LE(0) !== MAGIC) return undefined;
    const size = data.readUInt32LE(8);
    const fixedBytes = 4 * (size + 1) + 4 * size + 4 * PAIRS;
    if (data.length < HEADER_BYTES + fixedBytes) return undefined;
    if (data.readUInt32LE(4) !== checksum(data.subarray(8))) return undefined;
    // Typed arrays need aligned bytes: a copy when the file's buffer is not.
    const bytes = data.byteOffset % 4 === 0 ? data : Buffer.from(data);
    let at = bytes.byteOffset + HEADER_BYTES;
    const offsets = new Uint32Array(bytes.buffer, at, size + 1);
    at += 4 * (size + 1);
    const ranks = new Uint32Array(bytes.buffer, at, size);
    at += 4 * size;
    const pairs = new Int32Array(bytes.buffer, at, PAIRS);
    at += 4 * PAIRS;
    const text = new Uint8Array(bytes.buffer, at, bytes.length - HEADER_BYTES - fixedBytes);
    // Damage is caught by the checksum. The rest is not checked byte by byte (~25 ms a run): out-of-order offsets or
    // text only misplace a look-up, which reads within the arrays and ends, and costs a count, as a wrong rank would.
    if (offsets[0] !== 0 || offsets[size] !== text.length) return undefined;
    return new AsciiRankFile(offsets, ranks, pairs, text);
  }

  /** Tokens held. */
  get size(): number {
    return this.#ranks.length;
  }

  /** The rank of the token `piece.slice(start, end)` (ASCII), or Infinity when it is not a token. */
  rank(piece: string, start: number, end: number): number {
    let low = 0;
    let high = this.#ranks.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = this.#compare(piece, start, end, middle);
      if (order === 0) return this.#ranks[middle] as number;
      if (order < 0) high = middle - 1;
      else low = middle + 1;
    }
    return Number.POSITIVE_INFINITY;
  }

  #compare(piece: string, start: number, end: number, index: number): number {
    const from = this.#offsets[index] as number;
    const length = (this.#offsets[index + 1] as number) - from;
    const shared = Math.min(end - start, length);
    for (let at = 0; at < shared; at++) {
      const difference = piece.charCodeAt(start + at) - (this.#text[from + at] as number);
      if (difference !== 0) return difference;
    }
    return end - start - length;
  }

  /**
   * Writes the ASCII tokens of `ranks` (the encoding's map from token text to rank) as the file of `name` in
   * `dir`, when a counter over the file agrees with `countTokens` (gpt-tokenizer's count) and `pattern` (the
   * encoding's split pattern, global) on the probe texts. Returns whether it was written.
   */
  static save(
    dir: string,
    name: TokenizerName,
    ranks: ReadonlyMap<string, number>,
    pattern: RegExp,
    countTokens: (text: string) => number,
  ): boolean {
    const tokens: string[] = [];
    for (const token of ranks.keys()) if (token.length > 0 && isAscii(token)) tokens.push(token);
    // Byte order: for ASCII, the code unit order of Array.prototype.sort.
    tokens.sort();
    let textBytes = 0;
    for (const token of tokens) textBytes += token.length;
    const size = tokens.length;
    const fixedBytes = 4 * (size + 1) + 4 * size + 4 * PAIRS;
    const data = Buffer.alloc(HEADER_BYTES + fixedBytes + textBytes);
    let at = data.byteOffset + HEADER_BYTES;
    const offsets = new Uint32Array(data.buffer, at, size + 1);
    at += 4 * (size + 1);
    const rankOf = new Uint32Array(data.buffer, at, size);
    at += 4 * size;
    const pairs = new Int32Array(data.buffer, at, PAIRS).fill(-1);
    at += 4 * PAIRS;
    const text = new Uint8Array(data.buffer, at, textBytes);
    let chars = 0;
    for (const [index, token] of tokens.entries()) {
      offsets[index] = chars;
      const rank = ranks.get(token) as number;
      rankOf[index] = rank;
      if (token.length === 2) pairs[token.charCodeAt(0) * 128 + token.charCodeAt(1)] = rank;
      for (let char = 0; char < token.length; char++) text[chars + char] = token.charCodeAt(char);
      chars += token.length;
    }
    offsets[size] = chars;
    data.writeUInt32LE(MAGIC, 0);
    data.writeUInt32LE(size, 8);
    data.writeUInt32LE(checksum(data.subarray(8)), 4);
    const written = AsciiRankFile.#parse(data);
    if (written === undefined || !agreesOnProbes(asciiCounter(written, pattern), countTokens)) return false;
    const { file, prefix, suffix } = fileOf(dir, name);
    return writeCache(file, [prefix, suffix], data);
  }

  /** Whether a file of `name` is in `dir` (not whether it can be used). */
  static exists(dir: string, name: TokenizerName): boolean {
    return existsSync(fileOf(dir, name).file);
  }
}

/** The file: per encoding, gpt-tokenizer version (the ranks depend on both only) and file format. */
function fileOf(dir: string, name: TokenizerName): { file: string; prefix: string; suffix: string } {
  const prefix = `ascii-ranks-${name}-`;
  const suffix = ".bin";
  const { version } = require("gpt-tokenizer/package.json") as { version: string };
  // -f2: checked by CRC-32 (the file without a format was checked by a hash of our own); writing it removes that one.
  return { file: join(dir, `${prefix}${version}-f2${suffix}`), prefix, suffix };
}
