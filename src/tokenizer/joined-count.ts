import { BPE_WINDOW, cutsOnlyAtPieceStarts } from "./bounded-pieces.js";
import { isTokenizerName, resolveTokenizer } from "./resolve-tokenizer.js";
import { isWhitespace } from "./text-boundaries.js";
import type { Tokenizer } from "./tokenizer.js";

/** A text and its count by the tokenizer. */
export interface CountedText {
  text: string;
  tokens: number;
}

/**
 * `tokenizer.count` of the parts' texts joined and trimmed, worked out from the parts' own counts and a count of
 * the text around each seam, or undefined when that cannot be had exactly (then count the text). Only for the
 * built-in encodings, whose pre-tokenizers start a piece before a single space between two non-space characters
 * (`bounded-pieces.ts` cuts its windows there too): counts add up across such a place.
 *
 * A text splitter cuts text into sentences, clauses and words, counts each, and joins them into chunks; counting
 * each chunk again took 40% of the counting in an index. Here each seam between two parts is counted again only
 * from the last such place before it to the first after it (a word or two): the count of the joined text is the
 * parts' counts, plus for each of those stretches its count minus the counts of its pieces in the parts. Leading
 * and trailing whitespace is trimmed the same way. Undefined when a seam or a trimmed end has no such place on
 * either side within the parts around it, or when a part or the result is counted with a window cut mid-piece.
 */
export function joinedCount(tokenizer: Tokenizer, parts: readonly CountedText[]): number | undefined {
  if (
    parts.length === 0 ||
    !isTokenizerName(tokenizer.name) ||
    resolveTokenizer(tokenizer.name) !== tokenizer
  )
    return undefined;
  let joined = "";
  let tokens = 0;
  // Where each part starts in the joined text, then its end.
  const starts: number[] = [];
  for (const part of parts) {
    if (part.text === "" || !cutsOnlyAtPieceStarts(part.text)) return undefined;
    starts.push(joined.length);
    joined += part.text;
    tokens += part.tokens;
  }
  starts.push(joined.length);
  // Each seam, counted again over the stretch between the places around it where counts add up in the joined text
  // and in the parts alike.
  const cuts = new Cuts(joined);
  let covered = 0;
  for (let index = 1; index < parts.length; index++) {
    const seam = starts[index] as number;
    if (seam < covered || cuts.isCut(seam)) continue;
    const from = cuts.before(seam);
    const to = cuts.after(seam);
    if (from === undefined || to === undefined) return undefined;
    const stretch = restated(tokenizer, joined, starts, from, to);
    if (stretch === undefined) return undefined;
    tokens += stretch;
    covered = to;
  }
  // Leading and trailing whitespace, taken off the same way.
  let start = 0;
  while (start < joined.length && isWhitespace(joined.charCodeAt(start))) start++;
  if (start === joined.length) return 0;
  let end = joined.length;
  while (isWhitespace(joined.charCodeAt(end - 1))) end--;
  const trimmed = start === 0 && end === joined.length ? joined : joined.slice(start, end);
  if (!cutsOnlyAtPieceStarts(trimmed)) return undefined;
  if (start > 0) {
    const to = cuts.after(start - 1);
    if (to === undefined || to > end) return undefined;
    const change = difference(tokenizer, joined.slice(start, to), joined.slice(0, to));
    if (change === undefined) return undefined;
    tokens += change;
  }
  if (end < joined.length) {
    const from = cuts.before(end + 1);
    if (from === undefined || from < start) return undefined;
    const change = difference(tokenizer, joined.slice(from, end), joined.slice(from));
    if (change === undefined) return undefined;
    tokens += change;
  }
  return tokens;
}

// count(text) - count(instead), when both are counted in one window (a stretch between two nearby cuts).
function difference(tokenizer: Tokenizer, text: string, instead: string): number | undefined {
  if (text.length > BPE_WINDOW || instead.length > BPE_WINDOW) return undefined;
  return tokenizer.count(text) - tokenizer.count(instead);
}

// The count of joined[from, to) minus the counts of its pieces in the parts: what joining them adds.
function restated(
  tokenizer: Tokenizer,
  joined: string,
  starts: readonly number[],
  from: number,
  to: number,
): number | undefined {
  // A stretch within one count window: its pieces in the parts are then counted whole too.
  if (to - from > BPE_WINDOW) return undefined;
  const stretch = joined.slice(from, to);
  let tokens = tokenizer.count(stretch);
  for (let part = 0; part < starts.length - 1; part++) {
    const start = Math.max(from, starts[part] as number);
    const end = Math.min(to, starts[part + 1] as number);
    if (start < end) tokens -= tokenizer.count(joined.slice(start, end));
  }
  return tokens;
}

/**
 * The places where counts add up: before a single space between two non-space characters, and the joined text's
 * two ends. A part's count splits there too: inside it, as the joined text's does; at its start or end trivially;
 * before a space that ends it, because that space is a piece of its own (no piece runs from a non-space
 * character on into a space).
 */
class Cuts {
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  isCut(at: number): boolean {
    const text = this.#text;
    if (at === 0 || at === text.length) return true;
    return (
      text.charCodeAt(at) === 32 &&
      at + 1 < text.length &&
      !isWhitespace(text.charCodeAt(at - 1)) &&
      !isWhitespace(text.charCodeAt(at + 1))
    );
  }

  /** The last place before `at` (not at it), if any. */
  before(at: number): number | undefined {
    for (let index = at - 1; index >= 0; index--) if (this.isCut(index)) return index;
    return undefined;
  }

  /** The first place after `at` (not at it), if any. */
  after(at: number): number | undefined {
    for (let index = at + 1; index <= this.#text.length; index++) if (this.isCut(index)) return index;
    return undefined;
  }
}
