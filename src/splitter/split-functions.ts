/** Splits a text into pieces; splitters compose these (LlamaIndex's `node_parser/text/utils.py`). */
export type SplitFunction = (text: string) => string[];

/**
 * Splits at every `separator` and keeps it at the START of each later piece; empty pieces are dropped.
 * This is what LlamaIndex does (its docstring says "at the end").
 * @example splitTextKeepSeparator("a  b c", " ") // ["a", " ", " b", " c"]
 */
export function splitTextKeepSeparator(text: string, separator: string): string[] {
  const parts = text.split(separator);
  const pieces: string[] = [];
  for (const [index, part] of parts.entries()) {
    const piece = index > 0 ? separator + part : part;
    if (piece !== "") pieces.push(piece);
  }
  return pieces;
}

/**
 * A split function for one separator.
 * @param keepSeparator keep the separator at the start of each later piece (otherwise drop it)
 * @default keepSeparator true
 */
export function splitBySeparator(separator: string, keepSeparator = true): SplitFunction {
  return keepSeparator
    ? (text) => splitTextKeepSeparator(text, separator)
    : (text) => text.split(separator).filter((piece) => piece !== "");
}

/** A split function into characters: code points, so a surrogate pair (an emoji) stays whole. */
export function splitByCharacter(): SplitFunction {
  return (text) => Array.from(text);
}
