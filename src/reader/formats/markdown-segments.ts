/** A run of whole Markdown lines, and the line of the source it starts on less one. */
export interface MarkdownSegment {
  text: string;
  lineOffset: number;
}

// A fence opens or closes a code block (CommonMark: up to three spaces, then ``` or ~~~).
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// Deeper than this (leading spaces, or `>` markers), a Markdown parser's cost grows with the square of the nesting
// (micromark, which reads MDX, on nested lists and quotes; markdown-it stops at its own depth, see
// markdown-it-blocks.ts): such a run is read as plain paragraphs.
const MAX_INDENT = 64;
const DEEP_QUOTE = /^(?:\s*>){17,}/;

/**
 * Cuts Markdown into segments of about `size` characters, each at a blank line outside a fenced code block and
 * before a line that starts at its margin (not a list item's continuation), so each segment parses alone as it
 * would in place. A file of 30 MB then parses in pieces that a caller can interleave with the event loop, instead
 * of in one call of minutes. Reference definitions (`[id]: url`) apply within their segment only.
 */
export function markdownSegments(text: string, size: number): MarkdownSegment[] {
  return [...iterateMarkdownSegments(text, size)];
}

/** {@link markdownSegments} one at a time: the scan for the next cut costs one segment's length, not the file's. */
export function* iterateMarkdownSegments(text: string, size: number): Generator<MarkdownSegment> {
  if (text.length <= size) {
    yield { text, lineOffset: 0 };
    return;
  }
  let start = 0;
  let startLine = 0;
  let position = 0;
  let line = 0;
  let fence: string | undefined;
  while (position < text.length) {
    const newline = text.indexOf("\n", position);
    const end = newline === -1 ? text.length : newline;
    const current = text.slice(position, end);
    const opener = FENCE.exec(current)?.[1];
    if (opener !== undefined) {
      if (fence === undefined) fence = opener[0];
      else if (opener[0] === fence) fence = undefined;
    }
    position = end + 1;
    line++;
    if (newline === -1) break;
    if (position - start < size || fence !== undefined || current.trim() !== "") continue;
    const nextEnd = text.indexOf("\n", position);
    const next = text.slice(position, nextEnd === -1 ? text.length : nextEnd);
    if (next.trim() === "" || /^\s/.test(next)) continue;
    // Cut after this blank line: the segment ends with it (its newline is the join between segments).
    yield { text: text.slice(start, position - 1), lineOffset: startLine };
    start = position;
    startLine = line;
  }
  yield { text: text.slice(start), lineOffset: startLine };
}

/** True for Markdown nested so deep that parsing it would take far longer than its size suggests. */
export function isPathologicallyNested(text: string): boolean {
  for (const line of text.split("\n")) {
    const indent = line.length - line.trimStart().length;
    if (indent > MAX_INDENT || DEEP_QUOTE.test(line)) return true;
  }
  return false;
}
