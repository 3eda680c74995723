import { lexicalTokens } from "../analysis/lexical-tokens.js";
import type { Passage } from "./passages.js";

// How a chosen passage grows into the quote that holds its answer, and what that quote costs of `maxSentences`.

// A chosen passage brings neighbours while the quote stays at most this long.
const MAX_PARAGRAPH = 400;
const INLINE_CODE = /`[^`\n]+`/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s/;
// A label that introduces a code block (an HTML `<dt>`, "Example") is at most this long.
const MAX_LABEL = 80;
// A quote that takes in the code block, list or paragraph its sentence introduces stays at most this long.
const MAX_INTRODUCED = 800;

/** A passage of the answer so far (`source` 0) or of the context (1); `whole` for a whole short section. @internal */
export interface QuotablePassage extends Passage {
  source: number;
  whole: boolean;
}

/**
 * A passage is quoted together with the nearest passage before and after it in its paragraph that names
 * something in code (`` `limit` ``, `` Default: `'100kb'` ``, a short example) or opens a definition item with its
 * term (`gc.pruneExpire When git gc is run, …`, a man page's `.TP` item), and with the nearest sentence after it in
 * its paragraph that holds a query word the quote lacks (a term on a line of its own takes the first sentence of
 * what it defines, whatever its words), and what lies between, while the quote stays within
 * {@link MAX_PARAGRAPH} characters (the naming passage before is reached for first, so a later sentence of a long
 * item keeps its name rather than the sentence after it): the sentence that names the option and the one that gives its value are often
 * neighbours ("Controls the maximum request body size. … Defaults to `'100kb'`.", or in text without code marks
 * "Determines the maximum number of concurrent connections. The default is typically 100 connections."). Plain
 * prose around it stays out.
 * @internal
 */
export function neighbourWidener<T extends QuotablePassage>(
  candidates: readonly T[],
  sources: readonly string[],
  query: string,
): (candidate: T) => T {
  const queryTerms = new Set(lexicalTokens(query));
  // Whether `text` holds a query word that `quoted` does not.
  const addsQueryWord = (text: string, quoted: string) => {
    const have = new Set(lexicalTokens(quoted));
    return lexicalTokens(text).some((term) => queryTerms.has(term) && !have.has(term));
  };
  const groups = new Map<string, T[]>();
  const groupOf = (candidate: T) => `${candidate.source}:${candidate.block}`;
  for (const candidate of candidates) {
    if (candidate.whole) continue;
    groups.set(groupOf(candidate), [...(groups.get(groupOf(candidate)) ?? []), candidate]);
  }
  return (candidate) => {
    if (candidate.whole) return candidate;
    const group = groups.get(groupOf(candidate)) ?? [];
    const at = group.indexOf(candidate);
    if (at === -1) return candidate;
    let { start, end } = candidate;
    const reach = (step: 1 | -1) => {
      for (let index = at + step; index >= 0 && index < group.length; index += step) {
        const other = group[index] as T;
        const from = Math.min(start, other.start);
        const to = Math.max(end, other.end);
        if (to - from > MAX_PARAGRAPH) return;
        const source = sources[candidate.source] as string;
        const names = namesCode(other.text) || definesTerm(other);
        const completes = step === 1 && addsQueryWord(other.text, source.slice(start, end));
        // A term on its own (`--depth <depth>`, a signature) is quoted with the sentence that says what it is.
        const defined = step === 1 && index === at + 1 && candidate.text === candidate.term;
        if (names || completes || defined) {
          start = from;
          end = to;
          return;
        }
      }
    };
    reach(-1);
    reach(1);
    // A sentence that introduces a code block ("To undo the commit, run:", a label on its own: "Undo a commit and
    // redo") is quoted with the block, and the block with the sentence: either alone says half of it. A sentence
    // ending in a colon brings the list or the paragraph after it too ("…supports six functions as follows:").
    const source = sources[candidate.source] as string;
    const last = group.at(-1) as T;
    const after = groups.get(`${candidate.source}:${candidate.block + 1}`)?.[0];
    if (end === last.end && after && introduces(last, group) && isCodeAfter(source, end, after, start))
      end = after.end;
    else if (end === last.end && last.text.trimEnd().endsWith(":")) {
      // After a colon, a list (its items in a row) or a short paragraph, taken whole when the quote can hold it.
      let to: number | undefined;
      for (let block = candidate.block + 1; ; block++) {
        const next = groups.get(`${candidate.source}:${block}`);
        const first = next?.[0];
        if (!next || !first || source.slice(to ?? end, first.start).trim() !== "") break;
        const whole = (next.at(-1) as T).end;
        const fits = whole - start <= MAX_INTRODUCED;
        if (to === undefined && first.kind === "sentence") {
          if (fits) to = whole;
          break;
        }
        if (first.kind !== "lines" || !LIST_ITEM.test(first.text)) break;
        if (!fits) {
          to = undefined;
          break;
        }
        to = whole;
      }
      if (to !== undefined) end = to;
    }
    const before = groups.get(`${candidate.source}:${candidate.block - 1}`);
    const intro = before?.at(-1);
    if (
      start === group[0]?.start &&
      intro &&
      introduces(intro, before as T[]) &&
      isCodeAfter(source, intro.end, group[0], intro.start)
    )
      start = intro.start;
    if (start === candidate.start && end === candidate.end) return candidate;
    const text = (sources[candidate.source] as string).slice(start, end);
    // A quote that takes in lines (a term written as code) or spans paragraphs (a term on a line of its own, then
    // what it defines) keeps its line breaks, and stands apart from the quotes around it.
    const kind =
      /\n\s*\n/.test(text) ||
      group.some((other) => other.kind === "lines" && other.start >= start && other.end <= end)
        ? "lines"
        : candidate.kind;
    return { ...candidate, start, end, kind, text };
  };
}

/**
 * Whether a passage's term (`Passage.term`) can be quoted with it: the passage names it, or the passage that names
 * it comes before it in its block within {@link MAX_PARAGRAPH} characters, so the widened quote shows it. A sentence
 * far down a long item is scored without its term: it would be quoted without it, and a match on the term's words
 * would not show in the answer.
 * @internal
 */
export function termInReach<T extends QuotablePassage>(candidates: readonly T[]): (candidate: T) => boolean {
  const naming = new Map<string, number>();
  for (const candidate of candidates) {
    const group = `${candidate.source}:${candidate.block}`;
    if (!candidate.whole && definesTerm(candidate) && !naming.has(group)) naming.set(group, candidate.start);
  }
  return (candidate) => {
    if (candidate.term === "") return false;
    if (definesTerm(candidate)) return true;
    const start = naming.get(`${candidate.source}:${candidate.block}`);
    return start !== undefined && start <= candidate.start && candidate.end - start <= MAX_PARAGRAPH;
  };
}

/**
 * How many of `maxSentences` a quote uses: each passage it holds but the code-naming ones a widened quote takes in
 * for free (so a sentence joined for holding a query word costs a place, and the answer stays as long), at least 1.
 * @internal
 */
export function passagesQuoted(quote: QuotablePassage, candidates: readonly QuotablePassage[]): number {
  let count = 0;
  for (const candidate of candidates) {
    if (candidate.whole || candidate.source !== quote.source) continue;
    if (candidate.start < quote.start || candidate.end > quote.end) continue;
    if (namesCode(candidate.text) || definesTerm(candidate)) continue;
    count++;
  }
  return Math.max(1, count);
}

/**
 * Whether `passage`, the last of its block (`group`), introduces what follows: a sentence ending in a colon, or a
 * short label alone in its block with no sentence end (an HTML `<dt>`: "Undo a commit and redo").
 */
function introduces(passage: Passage, group: readonly Passage[]): boolean {
  if (passage.kind !== "sentence") return false;
  const text = passage.text.trimEnd();
  if (text.endsWith(":")) return true;
  return group.length === 1 && text.length <= MAX_LABEL && !/[.!?;,]$/.test(text);
}

/**
 * Whether `code` is a whole fenced block (not a run of a longer one) right after `end`, only blank lines between,
 * that a quote from `start` can take in.
 */
function isCodeAfter(source: string, end: number, code: Passage, start: number): boolean {
  return (
    code.kind === "lines" &&
    /^(```|~~~)[\s\S]*\n\1$/.test(code.text.trimEnd()) &&
    code.end - start <= MAX_INTRODUCED &&
    source.slice(end, code.start).trim() === ""
  );
}

/** The sentence that opens a definition item with its term (`-n, --line-number Prefix …`, a man page's `.TP`). */
function definesTerm(passage: Passage): boolean {
  return passage.term !== "" && passage.text.startsWith(passage.term);
}

/** A passage that names something in code: inline code marks, or a fenced block. */
function namesCode(text: string): boolean {
  return INLINE_CODE.test(text) || text.startsWith("```");
}
