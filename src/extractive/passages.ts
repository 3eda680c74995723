import { splitSentences } from "../splitter/sentences.js";

/** A quotable span of the context: `text` is exactly `context.slice(start, end)`. @internal */
export interface Passage {
  start: number;
  end: number;
  text: string;
  /** A prose sentence, or lines (a code block, list item or table row) that keep their line breaks. */
  kind: "sentence" | "lines";
  /** The nearest Markdown heading above it (scored with it, never quoted with it), or "". */
  heading: string;
  /**
   * The term its paragraph defines, when the paragraph opens with one (`-n, --line-number`, `gc.pruneExpire`: a man
   * page's `.TP` item, a definition list read as text), or "": each sentence of the item is scored with it, as with
   * its heading, and a later sentence of the item is quoted with the one that names it.
   */
  term: string;
  /** Which heading's section it is in, counting from 0; -1 before the first heading. */
  section: number;
  /** Which block (paragraph, code block, list item, table row) it is part of, counting from 0. */
  block: number;
}

/** Code blocks, list items and tables longer than this are quoted in runs of whole lines. */
export const MAX_PASSAGE = 600;

const FENCE = /^\s*(```|~~~)/;
const LONE_FENCE = /^(?:```|~~~)[\w-]*$/;
const HEADING = /^#{1,6}\s+(.*)$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;
const TABLE_ROW = /^\s*\|/;
// A paragraph that opens with options or configuration keys, comma-separated, then its text: `-n, --line-number
// Prefix …`, `--prune=<date> Prune …`, `-A <num>, --after-context <num> Show …`, `gc.pruneExpire When …`.
const OPTION_TERM = String.raw`(?:--?(?:\[[\w-]+\])?[\w<][^\s,]*(?: <[^>\s]+>)?|[a-z][\w-]*(?:\.[\w<>*-]+)+)`;
const TERM = new RegExp(String.raw`^${OPTION_TERM}(?:,\s+${OPTION_TERM})*(?=\s+\S)`);
// The label citation mode puts on a line of its own before each numbered piece (`Source 3:`): it names the
// piece, it is no part of any document, so it ends a block and is never quoted.
const SOURCE_LABEL = /^Source \d+:\s*$/;

/**
 * Cuts Markdown or plain text into the passages an extractive answer may quote: the sentences of prose
 * paragraphs, and whole fenced code blocks, list items and table rows (where option names, defaults and
 * examples live in developer docs), each with the heading it sits under. Headings are not passages, nor are the
 * `Source N:` label lines of citation mode. Code,
 * lists and tables longer than {@link MAX_PASSAGE} characters are cut into runs of whole lines. Every
 * passage is a verbatim slice of `text`; one pass over the lines, so linear.
 * @param split splits a paragraph into sentences (default: ICU sentences, joined back where a break has
 *   no whitespace after it); pieces that are not found verbatim in the paragraph are skipped.
 * @internal
 */
export function splitPassages(
  text: string,
  split: (paragraph: string) => string[] = proseSentences,
): Passage[] {
  const passages: Passage[] = [];
  let heading = "";
  let section = -1;
  let block: { start: number; end: number; kind: "prose" | "lines" } | undefined;
  let fence: string | undefined;
  let blocks = 0;
  const flush = () => {
    if (block) pushBlock(passages, text, block, { heading, section, block: blocks++ }, split);
    block = undefined;
  };
  let offset = 0;
  while (offset < text.length) {
    const newline = text.indexOf("\n", offset);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(offset, lineEnd);
    const next = newline === -1 ? text.length : newline + 1;
    if (SOURCE_LABEL.test(line)) {
      // A new piece begins: a code block the last piece was cut inside ends with it.
      fence = undefined;
      flush();
    } else if (fence !== undefined) {
      if (block) block.end = lineEnd;
      if (line.trim().startsWith(fence)) {
        fence = undefined;
        flush();
      }
    } else if (FENCE.test(line) && LONE_FENCE.test(line.trim()) && isBlankAfter(text, next)) {
      // A bare fence followed by a blank line closes a code block that a chunk cut began inside.
      flush();
    } else if (FENCE.test(line)) {
      flush();
      fence = (FENCE.exec(line) as RegExpExecArray)[1] as string;
      block = { start: offset, end: lineEnd, kind: "lines" };
    } else if (line.trim() === "") {
      flush();
    } else if (HEADING.test(line)) {
      flush();
      heading = (HEADING.exec(line) as RegExpExecArray)[1]?.trim() ?? "";
      section++;
    } else if (LIST_ITEM.test(line) || TABLE_ROW.test(line)) {
      flush();
      block = { start: offset, end: lineEnd, kind: "lines" };
      // A table row is one passage; a list item runs on over its indented continuation lines.
      if (TABLE_ROW.test(line)) flush();
    } else if (block) {
      block.end = lineEnd;
    } else {
      block = { start: offset, end: lineEnd, kind: "prose" };
    }
    offset = next;
  }
  flush();
  return passages;
}

function pushBlock(
  passages: Passage[],
  text: string,
  { start, end, kind }: { start: number; end: number; kind: "prose" | "lines" },
  { heading, section, block }: Pick<Passage, "heading" | "section" | "block">,
  split: (paragraph: string) => string[],
): void {
  const push = (from: number, to: number, passageKind: Passage["kind"], term = "") => {
    // Trim to the visible text, so a quote never starts or ends in whitespace.
    while (from < to && /\s/.test(text[from] as string)) from++;
    while (to > from && /\s/.test(text[to - 1] as string)) to--;
    // A lone fence line (a code block cut by chunking) quotes nothing.
    if (to > from && !LONE_FENCE.test(text.slice(from, to)))
      passages.push({
        start: from,
        end: to,
        text: text.slice(from, to),
        kind: passageKind,
        heading,
        term,
        section,
        block,
      });
  };
  if (kind === "prose") {
    const paragraph = text.slice(start, end);
    const term = TERM.exec(paragraph.trimStart())?.[0] ?? "";
    let position = 0;
    for (const sentence of split(paragraph)) {
      const trimmed = sentence.trim();
      const at = trimmed === "" ? -1 : paragraph.indexOf(trimmed, position);
      if (at === -1) continue;
      push(start + at, start + at + trimmed.length, "sentence", term);
      position = at + trimmed.length;
    }
    return;
  }
  if (end - start <= MAX_PASSAGE) {
    push(start, end, "lines");
    return;
  }
  let pieceStart = start;
  let position = start;
  while (position < end) {
    const newline = text.indexOf("\n", position);
    const lineEnd = newline === -1 || newline >= end ? end : newline + 1;
    if (lineEnd - pieceStart > MAX_PASSAGE && position > pieceStart) {
      push(pieceStart, position, "lines");
      pieceStart = position;
    }
    position = lineEnd;
  }
  push(pieceStart, end, "lines");
}

function isBlankAfter(text: string, offset: number): boolean {
  if (offset >= text.length) return true;
  const newline = text.indexOf("\n", offset);
  return text.slice(offset, newline === -1 ? text.length : newline).trim() === "";
}

function proseSentences(paragraph: string): string[] {
  return joinInsideTokens(splitSentences(paragraph));
}

// Chinese and Japanese end sentences with full-width punctuation and no space after it.
const CJK_END = /[\u3000-\u303f\uff00-\uffef\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u;

/**
 * ICU breaks after `?` or `!` even inside a token (`commits?author=x`, `wow!nice`); a break with no
 * whitespace after it (outside Chinese and Japanese) is not a sentence end, so those pieces are joined
 * back. Lossless.
 */
export function joinInsideTokens(sentences: readonly string[]): string[] {
  const joined: string[] = [];
  for (const sentence of sentences) {
    const previous = joined[joined.length - 1];
    if (previous !== undefined && !/\s$/.test(previous) && !CJK_END.test(previous) && !/^\s/.test(sentence)) {
      joined[joined.length - 1] = previous + sentence;
    } else {
      joined.push(sentence);
    }
  }
  return joined;
}
