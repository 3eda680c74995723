import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { writeCache } from "../util/v8-code-cache.js";
import type { PieceCounts } from "./piece-counts.js";
import type { TokenizerName } from "./tokenizer.js";

const require = createRequire(import.meta.url);

/**
 * The most pieces a file keeps: the most recently used. Loading costs a v8.deserialize and a map insert per piece
 * (~30 ms for a full file), so the file keeps only what the table of all pieces (piece-count-table.ts, looked up in
 * place, nothing loaded per piece) lacks: the pieces counted since an index last wrote the table. Without a table
 * (no index yet) it is the only store, and the cap keeps a full file below the cost of loading a rank table
 * (BENCHMARKS.md's import figure times an ask with a full file, and one that loads the table).
 */
export const MAX_SAVED_PIECES = 65_536;

// "RSPC", then a checksum of the rest, then V8's serialization of the body below.
const MAGIC = 0x43505352;
const HEADER_BYTES = 8;
// 3: checked by CRC-32 (2: by a hash of our own; 1 held the 65,536 most recent pieces, seeded into every run).
const FORMAT = 3;

interface Body {
  format: number;
  encoding: string;
  version: string;
  pieces: string[];
  counts: Uint16Array;
}

/**
 * The file of `name`'s piece counts in `dir`. The counts depend on the encoding and on gpt-tokenizer's rank table
 * only, so the name holds both; V8's serialization keeps a piece's UTF-16 exactly (a lone surrogate included),
 * which UTF-8 text or JSON would not.
 */
function fileOf(dir: string, name: TokenizerName): { file: string; prefix: string; suffix: string } {
  const prefix = `piece-counts-${name}-`;
  const suffix = ".v8";
  // The format in the name too: a file of another format is never read (a full format-1 file cost a read and a
  // deserialize before its body was found foreign), and the first write of this one removes it.
  return { file: join(dir, `${prefix}${tokenizerVersion()}-f${FORMAT}${suffix}`), prefix, suffix };
}

function tokenizerVersion(): string {
  return (require("gpt-tokenizer/package.json") as { version: string }).version;
}

function v8(): typeof import("node:v8") {
  return require("node:v8") as typeof import("node:v8");
}

/**
 * Seeds `memo` with the counts saved in `dir` for `name`, and returns how many it took. A missing, damaged or
 * foreign file (a checksum or field that does not match) is passed over: it only costs the counting it would have
 * saved, never a wrong count.
 */
export function seedPieceCounts(memo: PieceCounts, name: TokenizerName, dir: string): number {
  const { file } = fileOf(dir, name);
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch {
    return 0;
  }
  if (data.length < HEADER_BYTES || data.readUInt32LE(0) !== MAGIC) return 0;
  if (data.readUInt32LE(4) !== checksum(data.subarray(HEADER_BYTES))) return 0;
  let body: unknown;
  try {
    body = v8().deserialize(data.subarray(HEADER_BYTES));
  } catch {
    return 0;
  }
  if (!isBody(body, name)) return 0;
  memo.seed(body.pieces, body.counts);
  return body.pieces.length;
}

/**
 * Writes `memo`'s most recent pieces (at most {@link MAX_SAVED_PIECES}) to `dir` for `name`, replacing the file
 * whole, and removes the file of another gpt-tokenizer version. `which`: every piece held, those the table did not
 * answer (it holds the others), or none (the run has just written every piece it holds into the table). Returns
 * false when it could not be written.
 */
export function savePieceCounts(
  memo: PieceCounts,
  name: TokenizerName,
  dir: string,
  which: "all" | "not-in-table" | "none" = "all",
): boolean {
  const { pieces, counts } =
    which === "none"
      ? { pieces: [], counts: [] }
      : memo.recent(MAX_SAVED_PIECES, { exceptKnown: which === "not-in-table" });
  const body: Body = {
    format: FORMAT,
    encoding: name,
    version: tokenizerVersion(),
    pieces,
    counts: Uint16Array.from(counts),
  };
  const payload = v8().serialize(body);
  const data = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  data.writeUInt32LE(MAGIC, 0);
  data.writeUInt32LE(checksum(payload), 4);
  payload.copy(data, HEADER_BYTES);
  const { file, prefix, suffix } = fileOf(dir, name);
  return writeCache(file, [prefix, suffix], data);
}

function isBody(body: unknown, name: TokenizerName): body is Body {
  if (typeof body !== "object" || body === null) return false;
  const { format, encoding, version, pieces, counts } = body as Partial<Body>;
  if (format !== FORMAT || encoding !== name || version !== tokenizerVersion()) return false;
  if (!Array.isArray(pieces) || !(counts instanceof Uint16Array) || counts.length !== pieces.length)
    return false;
  // Each piece is checked as it is seeded (PieceCounts.seed takes strings of at most MAX_CACHED_PIECE characters).
  return true;
}

/**
 * The CRC-32 of `data` (zlib's, native), enough to tell a damaged file from a whole one. The piece table of a large
 * corpus is ~7 MB and every ask that counts a token checks it: a word-by-word hash in JavaScript took ~10 ms of a
 * fresh process (mostly before V8 optimized its loop), zlib's CRC-32 ~2 ms.
 */
export function checksum(data: Uint8Array): number {
  return crc32(data);
}
