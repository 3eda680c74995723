import { type CutRule, textWindows } from "../util/text-windows.js";
import { characterBoundary, isWhitespace } from "./text-boundaries.js";

/** The most characters one BPE call receives. */
export const BPE_WINDOW = 2048;
/** The longest run without whitespace that is tokenized whole; longer runs are cut (counting up, not down). */
export const MAX_RUN = 512;

// Before a single space between two non-space characters: a tiktoken-style pre-tokenizer (cl100k, o200k,
// r50k) always starts a piece there (" word", " 12", " ("), so counting both sides apart is exact.
const beforeSingleSpace: CutRule = (text, index) =>
  text.charCodeAt(index) === 32 &&
  !isWhitespace(text.charCodeAt(index - 1)) &&
  index + 1 < text.length &&
  !isWhitespace(text.charCodeAt(index + 1));

/**
 * Cuts text for a BPE tokenizer whose cost grows with the square of a piece's length: windows of at most
 * {@link BPE_WINDOW} characters cut where the pre-tokenizer would cut anyway (so the sum of the counts is
 * exact), then any run of more than {@link MAX_RUN} characters without whitespace (base64, minified code)
 * cut into runs of that length. Such a cut can only add tokens, which is the safe side for a budget.
 */
export function boundedPieces(text: string): string[] {
  return text.length <= MAX_RUN ? [text] : Array.from(eachBoundedPiece(text));
}

/**
 * {@link boundedPieces}, one window's pieces at a time: a caller that stops early (a count that has passed its
 * limit) never scans the rest of the text.
 */
export function* eachBoundedPiece(text: string): Generator<string, void, undefined> {
  if (text.length <= MAX_RUN) {
    yield text;
    return;
  }
  const pieces: string[] = [];
  for (const window of pieceWindows(text)) {
    pieces.length = 0;
    pushRuns(pieces, text, window[0], window[1]);
    yield* pieces;
  }
}

function pieceWindows(text: string): Array<[number, number]> {
  return (
    text.length <= BPE_WINDOW ? [[0, text.length]] : textWindows(text, BPE_WINDOW, beforeSingleSpace)
  ) as Array<[number, number]>;
}

function pushRuns(pieces: string[], text: string, start: number, end: number): void {
  let pieceStart = start;
  let run = 0;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    // ASCII first: a letter or a space decided in one or two comparisons.
    run = code > 32 && code < 128 ? run + 1 : isWhitespace(code) ? 0 : run + 1;
    if (run > MAX_RUN) {
      const cut = characterBoundary(text, index);
      if (cut > pieceStart) {
        pieces.push(text.slice(pieceStart, cut));
        pieceStart = cut;
      }
      run = index - cut + 1;
    }
  }
  pieces.push(text.slice(pieceStart, end));
}

/**
 * True when {@link eachBoundedPiece} cuts `text` only where the pre-tokenizer starts a piece anyway (one window, or
 * every window ending before a single space): its count is then the same wherever the windows fall, so the text
 * can be counted in parts cut at such places. False when a window had to end mid-run (CJK, long runs).
 */
export function cutsOnlyAtPieceStarts(text: string): boolean {
  if (text.length <= BPE_WINDOW) return true;
  for (const [, end] of pieceWindows(text)) {
    if (end < text.length && !beforeSingleSpace(text, end)) return false;
  }
  return true;
}
