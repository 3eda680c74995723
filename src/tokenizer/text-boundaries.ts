// Offsets where text may be cut: never inside a surrogate pair; whitespace as `\s` sees it.

/** The whitespace of `\s` in regular expressions, by UTF-16 code unit. */
export function isWhitespace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** `offset`, or one less when `offset` would split a surrogate pair of `text`. */
export function characterBoundary(text: string, offset: number): number {
  const code = text.charCodeAt(offset);
  const previous = text.charCodeAt(offset - 1);
  return code >= 0xdc00 && code <= 0xdfff && previous >= 0xd800 && previous <= 0xdbff ? offset - 1 : offset;
}

/** `end` moved back over whitespace, but not before `start`. */
export function trimEndOffset(text: string, start: number, end: number): number {
  let trimmed = end;
  while (trimmed > start && isWhitespace(text.charCodeAt(trimmed - 1))) trimmed -= 1;
  return trimmed;
}
