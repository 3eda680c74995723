// cl100k_base's pre-tokenizer (gpt-tokenizer's CL100K_TOKEN_SPLIT_REGEX), matched by hand on ASCII text:
//
//   '(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])   a contraction
//   | [^\r\n\p{L}\p{N}]?\p{L}+                             letters, after at most one other character
//   | \p{N}{1,3}                                           up to three digits
//   | ' '?[^\s\p{L}\p{N}]+[\r\n]*                          symbols, after at most one space, then line breaks
//   | \s+$ | \s*[\r\n] | \s+(?!\S) | \s                    whitespace
//
// The alternatives are tried in that order at each position; together they match every character, so the pieces
// of a text are contiguous and the piece at a position depends only on the text from there on (no lookbehind).
// On ASCII the classes are plain: \p{L} is A–Z and a–z, \p{N} is 0–9, \s is tab, line feed, vertical tab, form feed,
// carriage return and space. The regular expression spends ~35 ns per character on its Unicode classes (most of
// counting tokens, most of splitting text into chunks); this loop a few. Where a piece would reach, or decide on,
// a character above ASCII, it answers -1 and the caller asks the regular expression.

const LETTER = 1;
const DIGIT = 2;
const SPACE = 4;
const BREAK = 8; // \r or \n, also SPACE
const OTHER = 16; // none of the above: [^\s\p{L}\p{N}]

const KIND = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  KIND[code] =
    (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
      ? LETTER
      : code >= 48 && code <= 57
        ? DIGIT
        : code === 10 || code === 13
          ? SPACE | BREAK
          : code === 32 || (code >= 9 && code <= 12)
            ? SPACE
            : OTHER;
}

const NOT_ASCII = 0;

// The kind of the character at `index`, NOT_ASCII above ASCII; `index` is inside the text.
function kindAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? (KIND[code] as number) : NOT_ASCII;
}

/**
 * The end of cl100k_base's pre-tokenizer piece that starts at `start` of `text` (as the regular expression, run
 * with `lastIndex = start` over the whole of `text`, would match it), or -1 when that depends on a character above
 * ASCII. `start` is below `text.length`.
 */
export function cl100kPieceEnd(text: string, start: number): number {
  const end = text.length;
  const kind = kindAt(text, start);
  if (kind === NOT_ASCII) return -1;
  if (kind === LETTER) return letterRunEnd(text, start + 1);
  if (kind === DIGIT) {
    let index = start + 1;
    while (index < end && index < start + 3) {
      const next = kindAt(text, index);
      if (next === NOT_ASCII) return -1;
      if (next !== DIGIT) break;
      index++;
    }
    return index;
  }
  const next = start + 1 < end ? kindAt(text, start + 1) : -2;
  if (next === NOT_ASCII) return -1;
  if (text.charCodeAt(start) === 39 && next !== -2) {
    const contraction = contractionEnd(text, start);
    if (contraction !== 0) return contraction;
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+ with the optional character: any kind here but a line break (letters and digits
  // returned above).
  if (next === LETTER && (kind & BREAK) === 0) return letterRunEnd(text, start + 2);
  if (kind === OTHER || (text.charCodeAt(start) === 32 && next === OTHER)) {
    let index = kind === OTHER ? start + 1 : start + 2;
    while (index < end) {
      const at = kindAt(text, index);
      if (at === NOT_ASCII) return -1;
      if (at !== OTHER) break;
      index++;
    }
    while (index < end) {
      const code = text.charCodeAt(index);
      if (code !== 10 && code !== 13) break;
      index++;
    }
    return index;
  }
  // Whitespace: its run, and the last line break in it.
  let runEnd = start + 1;
  let lastBreak = kind & BREAK ? start : -1;
  while (runEnd < end) {
    const at = kindAt(text, runEnd);
    if (at === NOT_ASCII) return -1;
    if ((at & SPACE) === 0) break;
    if (at & BREAK) lastBreak = runEnd;
    runEnd++;
  }
  if (runEnd === end) return end; // \s+$
  if (lastBreak >= 0) return lastBreak + 1; // \s*[\r\n]
  if (runEnd - start >= 2) return runEnd - 1; // \s+(?!\S), giving its last space to what follows
  return start + 1; // \s
}

function letterRunEnd(text: string, from: number): number {
  let index = from;
  while (index < text.length) {
    const at = kindAt(text, index);
    if (at === NOT_ASCII) return -1;
    if (at !== LETTER) break;
    index++;
  }
  return index;
}

// The end of a contraction at `start` (an apostrophe), or 0.
function contractionEnd(text: string, start: number): number {
  const first = text.charCodeAt(start + 1) | 0x20;
  if (first === 115 || first === 100 || first === 109 || first === 116) return start + 2; // s d m t
  if (start + 2 >= text.length) return 0;
  const second = text.charCodeAt(start + 2) | 0x20;
  if (
    (first === 108 && second === 108) ||
    (first === 118 && second === 101) ||
    (first === 114 && second === 101)
  )
    return start + 3; // ll ve re
  return 0;
}
