import { createRequire } from "node:module";
import { BoundedCache, ownCopy } from "../util/bounded-cache.js";
import { asciiCounter, asciiPieceCounter, rankMapOf } from "./ascii-piece-count.js";
import { AsciiRankFile } from "./ascii-rank-file.js";
import { boundedPieces, eachBoundedPiece } from "./bounded-pieces.js";
import { rankTableCodeCacheDir, tokenizerCacheDir } from "./cache-dir.js";
import { cl100kPieceEnd } from "./cl100k-pieces.js";
import { savePieceCounts, seedPieceCounts } from "./piece-count-file.js";
import { PieceCountTable, savePieceCountTable } from "./piece-count-table.js";
import { MAX_CACHED_PIECE, PIECE_COUNTS, PieceCounts } from "./piece-counts.js";
import { loadEncodingWithCodeCache } from "./rank-table-code-cache.js";
import { splitPattern } from "./split-patterns.js";
import type { Tokenizer, TokenizerName } from "./tokenizer.js";

interface BpeModule {
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
  setMergeCacheSize(size: number): void;
}

const require = createRequire(import.meta.url);
const loaded = new Map<TokenizerName, BpeModule>();
const counts = new Map<TokenizerName, PieceCounts>();
const countPatterns = new Map<TokenizerName, RegExp>();
const pieceCounters = new Map<TokenizerName, (text: string) => number>();
const tableCounters = new Map<TokenizerName, (text: string) => number>();
/** Pieces a run must have counted itself before it rewrites the table of all pieces (`PieceCountTable`). */
const TABLE_SAVE_MIN_COUNTED = 1024;

// Special-token strings in retrieved text (`<|endoftext|>`) are counted as the plain text an API
// receives, never as one special token: that would under-count and overflow the window.
const plainText = { disallowedSpecial: new Set<string>() };

function load(name: TokenizerName): BpeModule {
  let module = loaded.get(name);
  if (!module) {
    // A synchronous, lazy load: importing ragsynth must not load rank tables (~1 MB each).
    module = (cachedEncoding(name) ?? require(`gpt-tokenizer/cjs/encoding/${name}`)) as BpeModule;
    // Piece counts are cached in front of this ({@link PieceCounts}, bounded). gpt-tokenizer's own LRU behind it
    // sees only the misses, keeps its keys as views into the caller's text (holding whole documents alive), and
    // evicts in time that grows with its deletions: a warm 6.4M-token index took 19 s with it, 2.7 s without.
    module.setMergeCacheSize(0);
    loaded.set(name, module);
  }
  return module;
}

// The encoding with its rank table's compiled code from the code cache, when one is set (the CLI sets one). Any
// failure there (a gpt-tokenizer that lays its files out differently) falls back to gpt-tokenizer's own module.
function cachedEncoding(name: TokenizerName): unknown {
  const codeCacheDir = rankTableCodeCacheDir();
  if (codeCacheDir === undefined) return undefined;
  try {
    return loadEncodingWithCodeCache(name, codeCacheDir).encoding;
  } catch {
    return undefined;
  }
}

/**
 * The encoding's count of a piece not seen before. With the encoding's {@link AsciiRankFile} in the tokenizer cache,
 * ASCII pieces are merged over it and the rank table loads only for another piece, or once the file has counted
 * {@link FILE_COUNTED_MAX} pieces (a binary search per rank: an index run counting many is faster on the table).
 */
function pieceCounter(name: TokenizerName): (text: string) => number {
  let counter = pieceCounters.get(name);
  if (!counter) {
    const dir = tokenizerCacheDir();
    const file = dir === undefined || loaded.has(name) ? undefined : AsciiRankFile.open(dir, name);
    if (file === undefined) {
      counter = tableCounter(name);
    } else {
      const ascii = asciiCounter(file, splitPattern(name));
      let fileCounted = 0;
      // Once the table is loaded, it counts everything: the next calls go to it directly.
      const onTable = (text: string) => {
        const table = tableCounter(name);
        pieceCounters.set(name, table);
        return table(text);
      };
      counter = (text) => {
        if (fileCounted >= FILE_COUNTED_MAX) return onTable(text);
        const tokens = ascii(text);
        if (tokens === undefined) return onTable(text);
        fileCounted++;
        return tokens;
      };
    }
    pieceCounters.set(name, counter);
  }
  return counter;
}

const FILE_COUNTED_MAX = 4096;

/**
 * The count over the loaded rank table: ASCII text through {@link asciiPieceCounter} (the same merges over the same
 * rank table, on strings), anything else through gpt-tokenizer's own count.
 */
function tableCounter(name: TokenizerName): (text: string) => number {
  let counter = tableCounters.get(name);
  if (!counter) {
    const module = load(name);
    const gptCount = (text: string) => module.countTokens(text, plainText);
    const ascii = asciiPieceCounter(module, splitPattern(name), gptCount);
    counter = ascii ? (text) => ascii(text) ?? gptCount(text) : gptCount;
    tableCounters.set(name, counter);
  }
  return counter;
}

/**
 * Long bounded pieces (over {@link MAX_CACHED_PIECE} characters) a run counted, per encoding, for the table of all
 * pieces ({@link saveTokenizerCache}); the memo keeps none of them. At most {@link LONG_KEPT_CHARS} characters.
 */
const longCounted = new Map<TokenizerName, { pieces: Map<string, number>; chars: number }>();
const LONG_KEPT_CHARS = 1 << 20;

function rememberLong(name: TokenizerName, piece: string, tokens: number): void {
  let kept = longCounted.get(name);
  if (!kept) {
    kept = { pieces: new Map(), chars: 0 };
    longCounted.set(name, kept);
  }
  if (kept.chars + piece.length > LONG_KEPT_CHARS || kept.pieces.has(piece)) return;
  kept.pieces.set(ownCopy(piece), tokens);
  kept.chars += piece.length;
}

/** The encoding's memo of piece counts, shared by its `count` and every TokenIndex over it. */
function pieceCounts(name: TokenizerName): PieceCounts {
  let memo = counts.get(name);
  if (!memo) {
    // A long piece (a run without spaces) is counted in bounded pieces, as `count` counts it. BPE takes time
    // quadratic in a piece's length, and a budget search counts many prefixes of one long run, which share their
    // first bounded pieces: those counts are kept in a small memo of their own (at most 2 × 256 pieces of at most
    // a few thousand characters), since gpt-tokenizer's merge cache is off.
    const long = new BoundedCache<string, number>(256);
    const dir = tokenizerCacheDir();
    // The table of every piece earlier runs counted, opened on the first piece the memo lacks.
    let table: PieceCountTable | undefined | null;
    const known =
      dir === undefined
        ? undefined
        : (piece: string) => {
            if (table === undefined) table = PieceCountTable.open(dir, name) ?? null;
            return table?.get(piece);
          };
    const counter = new PieceCounts((piece) => {
      const count = pieceCounter(name);
      // A piece the memo holds is counted here whole; a longer one, in bounded pieces.
      if (piece.length <= MAX_CACHED_PIECE) return count(piece);
      let tokens = 0;
      for (const bounded of eachBoundedPiece(piece)) {
        // A short part of a long piece is a piece like any other: the memo's, or the table's.
        if (bounded.length <= MAX_CACHED_PIECE) {
          tokens += counter.count(bounded);
          continue;
        }
        let boundedTokens = long.get(bounded);
        if (boundedTokens === undefined) {
          // The table holds the long pieces earlier runs counted too (a line of box-drawing characters, a run of
          // Thai): without it, each run that met one loaded the rank table to count it (the ASCII rank file counts
          // only ASCII).
          boundedTokens = known?.(bounded);
          if (boundedTokens === undefined) {
            boundedTokens = count(bounded);
            rememberLong(name, bounded, boundedTokens);
          }
          long.set(ownCopy(bounded), boundedTokens);
        }
        tokens += boundedTokens;
      }
      return tokens;
    }, known);
    memo = counter;
    // With a cache folder, the counts earlier runs saved: a run that meets only pieces counted before never loads
    // the rank table (BENCHMARKS.md's import figure times both cases), and counts the same.
    if (dir !== undefined) seedPieceCounts(memo, name, dir);
    counts.set(name, memo);
  }
  return memo;
}

/**
 * Saves, into the folder given to useTokenizerCache, the piece counts of every built-in encoding that counted a
 * piece it had not seen (so a run that counted nothing new writes nothing), and the {@link AsciiRankFile} of each
 * rank table the run loaded, when there is none yet. Called by the CLI as a command ends.
 */
export function saveTokenizerCache(): void {
  const dir = tokenizerCacheDir();
  if (dir === undefined) return;
  // A run that loaded a rank table leaves its ASCII tokens for the next runs (once per encoding and version).
  for (const [name, module] of loaded) {
    const ranks = rankMapOf(module);
    if (ranks === undefined || AsciiRankFile.exists(dir, name)) continue;
    AsciiRankFile.save(dir, name, ranks, splitPattern(name), (text) => module.countTokens(text, plainText));
  }
  for (const [name, memo] of counts) {
    if (memo.counted === 0) continue;
    // A run that counted many new pieces (an index) adds every piece it holds to the table: sorting and writing
    // it costs ~0.1 s per 100k pieces, too much for an ask that counted a few.
    let tabled = false;
    if (memo.counted >= TABLE_SAVE_MIN_COUNTED) {
      const recent = memo.recent(Number.POSITIVE_INFINITY);
      // The long pieces first: the table keeps at most MAX_TABLE_PIECES, and they are few.
      const long = longCounted.get(name)?.pieces ?? new Map<string, number>();
      tabled = savePieceCountTable(
        dir,
        name,
        [...long.keys(), ...recent.pieces],
        [...long.values(), ...recent.counts],
      );
    }
    // The recent file keeps what the table lacks, so no run loads into its memo pieces the table holds.
    savePieceCounts(memo, name, dir, tabled ? "none" : "not-in-table");
  }
}

// The sum of the pre-tokenizer pieces' counts (what gpt-tokenizer sums, each piece memoized) over the bounded
// pieces; stops after the bounded piece (at most a few thousand characters) that passes `limit`.
function countUpTo(name: TokenizerName, text: string, limit: number): number {
  const memo = pieceCounts(name);
  let pattern = countPatterns.get(name);
  if (!pattern) {
    pattern = splitPattern(name);
    countPatterns.set(name, pattern);
  }
  const pieceEnd = name === "cl100k_base" ? cl100kPieceEnd : undefined;
  let tokens = 0;
  for (const piece of eachBoundedPiece(text)) {
    if (pieceEnd) {
      for (let start = 0; start < piece.length; ) {
        let end = pieceEnd(piece, start);
        if (end < 0) {
          // A piece reaching beyond ASCII: the regular expression's match there (it matches at every position).
          pattern.lastIndex = start;
          end = start + (pattern.exec(piece) as RegExpExecArray)[0].length;
        }
        tokens += memo.count(start === 0 && end === piece.length ? piece : piece.slice(start, end));
        start = end;
      }
    } else {
      pattern.lastIndex = 0;
      for (let match = pattern.exec(piece); match !== null; match = pattern.exec(piece)) {
        tokens += memo.count(match[0]);
      }
    }
    if (tokens > limit) return tokens;
  }
  return tokens;
}

function encode(module: BpeModule, text: string): number[] {
  const pieces = boundedPieces(text);
  if (pieces.length === 1) return module.encode(text, plainText);
  const tokens: number[] = [];
  for (const piece of pieces) for (const token of module.encode(piece, plainText)) tokens.push(token);
  return tokens;
}

/**
 * A built-in BPE tokenizer. The rank tables load on the first call, not on import. Text is tokenized in
 * bounded pieces ({@link boundedPieces}): exact for text with spaces, and linear in its length even for runs
 * without any (where BPE alone is quadratic); such runs count slightly high, never low.
 */
export function bpeTokenizer(name: TokenizerName): Tokenizer {
  const tokenizer: Tokenizer & { readonly [PIECE_COUNTS]: PieceCounts } = {
    name,
    count: (text) => (text.length === 0 ? 0 : countUpTo(name, text, Number.POSITIVE_INFINITY)),
    countUpTo: (text, limit) => (text.length === 0 ? 0 : countUpTo(name, text, limit)),
    encode: (text) => (text.length === 0 ? [] : encode(load(name), text)),
    get pretokenizer() {
      return splitPattern(name);
    },
    get [PIECE_COUNTS]() {
      return pieceCounts(name);
    },
  };
  return tokenizer;
}
