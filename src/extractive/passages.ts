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
// A call signature (`isleap(year)`, `asyncio.gather(*aws, return_exceptions=False)`, `class Counter([iterable])`,
// `time.time() → float`, one level of nested parentheses) or a TeX command (`\fontencoding{encoding}`).
const SIGNATURE = String.raw`(?:(?:class|exception|async|coroutine|awaitable|classmethod|staticmethod|abstractmethod|method|function|decorator)\s+)?[A-Za-z_][\w.]*\((?:[^()\n]|\([^()\n]*\))*\)(?:\s*(?:->|→)\s*\S[^\n]*)?`;
const TEX_COMMAND = String.raw`\\[A-Za-z@]+\*?(?:\s*(?:\{[^{}\n]*\}|\[[^\]\n]*\]))*`;
// A setting named with its type, as PostgreSQL's reference lists them: `work_mem (integer)`.
const TYPED_SETTING = String.raw`[a-z_][\w.]*\s+\([a-z][\w ,]*\)`;
// A paragraph that is nothing but a term: an HTML definition list's `<dt>` (`--depth <depth>`, `--num-callers=<number>
// [default: 12]`), a reStructuredText `.. function::` signature (`isleap(year)`), read as a line of its own. The
// prose paragraph right after it is what it defines.
const TERM_LINE = new RegExp(
  String.raw`^(?:${OPTION_TERM}(?:,\s+${OPTION_TERM})*(?:\s+\[[^\]\n]*\])?|${SIGNATURE}|${TEX_COMMAND}|${TYPED_SETTING})$`,
);
const MAX_TERM_LINE = 300;
// A code block of one line and no language (a term, not an example): its fence, the line, the same fence.
const FENCED_LINE = /^(```|~~~)\n([^\n]*)\n\1$/;
// Term paragraphs in a row are one run while it spans at most this many characters.
const MAX_TERMS = 300;
// The label citation mode puts on a line of its own before each numbered piece (`Source 3:`): it names the
// piece, it is no part of any document, so it ends a block and is never quoted.
const SOURCE_LABEL = /^Source \d+:\s*$/;

/**
 * Cuts Markdown or plain text into the passages an extractive answer may quote: the sentences of prose
 * paragraphs, and whole fenced code blocks, list items and table rows (where option names, defaults and
 * examples live in developer docs), each with the heading it sits under. A paragraph that is only a term (an HTML
 * `<dt>`, a reStructuredText signature: `--depth <depth>`, `isleap(year)`) and the prose paragraph right after it
 * are one item: one block, the term given to each sentence of both. Headings are not passages, nor are the
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
  // Term paragraphs in a row (only blank lines between), held until the next block shows whether prose they define
  // follows: then terms and prose are one item, one block, and each passage of the prose carries the terms.
  let terms: { start: number; end: number } | undefined;
  const pushTerms = () => {
    if (!terms) return undefined;
    // The run is its own term (verbatim, so the widening knows it as a passage that opens with its term).
    const term = text.slice(terms.start, terms.end).trim();
    const at = { heading, section, block: blocks++ };
    pushPassage(passages, text, terms.start, terms.end, term.includes("\n") ? "lines" : "sentence", at, term);
    terms = undefined;
    return { term, block: at.block };
  };
  const flush = () => {
    const current = block;
    block = undefined;
    if (!current) return;
    if (holdsOnlyTerm(text, current.start, current.end, current.kind)) {
      // Another term of the run, unless the run would grow past a quote's length.
      if (terms && current.end - terms.start <= MAX_TERMS) terms.end = current.end;
      else {
        pushTerms();
        terms = { start: current.start, end: current.end };
      }
      return;
    }
    const item = pushTerms();
    if (item && current.kind === "prose") {
      pushBlock(passages, text, current, { heading, section, block: item.block }, split, item.term);
    } else {
      pushBlock(passages, text, current, { heading, section, block: blocks++ }, split);
    }
  };
  /** Ends a block and any run of terms before it (a heading or a new piece follows). */
  const settle = () => {
    flush();
    pushTerms();
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
      settle();
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
      settle();
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
  settle();
  return passages;
}

function pushBlock(
  passages: Passage[],
  text: string,
  { start, end, kind }: { start: number; end: number; kind: "prose" | "lines" },
  place: Place,
  split: (paragraph: string) => string[],
  definedTerm = "",
): void {
  const push = (from: number, to: number, passageKind: Passage["kind"], term = "") =>
    pushPassage(passages, text, from, to, passageKind, place, term);
  if (kind === "prose") {
    const paragraph = text.slice(start, end);
    // A paragraph that opens with its own term keeps it; the one after term paragraphs takes theirs.
    const term = TERM.exec(paragraph.trimStart())?.[0] ?? definedTerm;
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
    // A definition item's term line (`- -L, --location`, then its text) stays with the line after it.
    const cut =
      lineEnd - pieceStart > MAX_PASSAGE &&
      position > pieceStart &&
      !(pieceStart === start && termLineOfItem(text.slice(start, position)));
    if (cut) {
      push(pieceStart, position, "lines");
      pieceStart = position;
    }
    position = lineEnd;
  }
  push(pieceStart, end, "lines");
}

/**
 * Whether a block holds a term and nothing else (options, a key, a signature, a TeX command on one line): a prose
 * paragraph of that line, or a code block of that one line (a `<dt>` whose text is a `<code>` element).
 */
function holdsOnlyTerm(text: string, start: number, end: number, kind: "prose" | "lines"): boolean {
  // Every block of the context passes here: one too long to be a term line (with its fences) is not sliced.
  if (end - start > MAX_TERM_LINE + 16) return false;
  const block = text.slice(start, end).trim();
  const line = kind === "prose" ? block : FENCED_LINE.exec(block)?.[2]?.trim();
  return (
    line !== undefined &&
    line !== "" &&
    line.length <= MAX_TERM_LINE &&
    !line.includes("\n") &&
    TERM_LINE.test(line)
  );
}

/** Whether a list item's first line (`- -L, --location`) is a term line once its marker is gone. */
function termLineOfItem(firstLine: string): boolean {
  const line = firstLine.replace(LIST_ITEM, "");
  return holdsOnlyTerm(line, 0, line.length, "prose");
}

type Place = Pick<Passage, "heading" | "section" | "block">;

/** Pushes `text.slice(from, to)`, trimmed to its visible text, as a passage (a lone fence line is none). */
function pushPassage(
  passages: Passage[],
  text: string,
  from: number,
  to: number,
  kind: Passage["kind"],
  { heading, section, block }: Place,
  term: string,
): void {
  // Trim to the visible text, so a quote never starts or ends in whitespace.
  while (from < to && /\s/.test(text[from] as string)) from++;
  while (to > from && /\s/.test(text[to - 1] as string)) to--;
  if (to > from && !LONE_FENCE.test(text.slice(from, to)))
    passages.push({ start: from, end: to, text: text.slice(from, to), kind, heading, term, section, block });
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
