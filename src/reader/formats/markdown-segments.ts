/** A run of whole Markdown lines, and the line of the source it starts on less one. */
export interface MarkdownSegment {
  text: string;
  lineOffset: number;
}

// A fence opens or closes a code block (CommonMark: up to three spaces, then ``` or ~~~).
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// Deeper than this (leading spaces, or `>` markers), a Markdown parser's cost grows with the square of the nesting
// (micromark and mdast-util-from-markdown on nested lists and quotes): such a run is read as plain paragraphs.
const MAX_INDENT = 64;
const DEEP_QUOTE = /^(?:\s*>){17,}/;

/**
 * Cuts Markdown into segments of about `size` characters, each at a blank line outside a fenced code block and
 * before a line that starts at its margin (not a list item's continuation), so each segment parses alone as it
 * would in place. A file of 30 MB then parses in pieces that a caller can interleave with the event loop, instead
 * of in one call of minutes. Reference definitions (`[id]: url`) apply within their segment only.
 */
export function markdownSegments(text: string, size: number): MarkdownSegment[] {
  if (text.length <= size) return [{ text, lineOffset: 0 }];
  const lines = text.split("\n");
  const segments: MarkdownSegment[] = [];
  let start = 0;
  let chars = 0;
  let fence: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    chars += line.length + 1;
    const opener = FENCE.exec(line)?.[1];
    if (opener !== undefined) {
      if (fence === undefined) fence = opener[0];
      else if (opener[0] === fence) fence = undefined;
    }
    const next = lines[index + 1];
    const cut =
      chars >= size &&
      fence === undefined &&
      line.trim() === "" &&
      next !== undefined &&
      next.trim() !== "" &&
      !/^\s/.test(next);
    if (cut) {
      segments.push({ text: lines.slice(start, index + 1).join("\n"), lineOffset: start });
      start = index + 1;
      chars = 0;
    }
  }
  segments.push({ text: lines.slice(start).join("\n"), lineOffset: start });
  return segments;
}

/** True for Markdown nested so deep that parsing it would take far longer than its size suggests. */
export function isPathologicallyNested(text: string): boolean {
  for (const line of text.split("\n")) {
    const indent = line.length - line.trimStart().length;
    if (indent > MAX_INDENT || DEEP_QUOTE.test(line)) return true;
  }
  return false;
}
