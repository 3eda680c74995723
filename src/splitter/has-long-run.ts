const LONG_RUN = 4096;

/**
 * Whether the text has more than 4096 letters in a row, or other symbols in a row: the runs a
 * BPE pre-tokenizer keeps whole. Spaces and digits end a run. A linear scan, unlike a regex here.
 */
export function hasLongRun(text: string): boolean {
  if (text.length <= LONG_RUN) return false;
  let run = 0;
  let previous = 0;
  for (const char of text) {
    const kind = charKind(char);
    run = kind === 0 ? 0 : kind === previous ? run + 1 : 1;
    previous = kind;
    if (run > LONG_RUN) return true;
  }
  return false;
}

/** 0 for whitespace and digits, 1 for letters and marks, 2 for anything else. */
function charKind(char: string): number {
  const code = char.charCodeAt(0);
  if (code < 128) {
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return 1;
    return code <= 32 || (code >= 48 && code <= 57) ? 0 : 2;
  }
  if (code >= 0x4e00 && code <= 0x9fff) return 1; // CJK ideographs, the common non-ASCII case
  if (/[\s\p{N}]/u.test(char)) return 0;
  return /[\p{L}\p{M}]/u.test(char) ? 1 : 2;
}
