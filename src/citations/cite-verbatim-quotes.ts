import { optionsOf } from "../errors/check-options.js";
import { checkString } from "../errors/check-string.js";
import { answerSentences } from "./answer-sentences.js";
import type { CitationMarker } from "./citation-markers.js";
import { type CitationSource, checkCitationSources } from "./citation-source.js";

// A quote that ends with a fenced code block's closing line.
const CLOSING_FENCE = /\n[ \t]*(?:```|~~~)[ \t]*$/;

/** Fewer characters than this (or none that is a letter or digit) are too little to attribute to one source. */
const MIN_QUOTE = 4;
const CONTENT = /[\p{L}\p{N}]/u;
// Letters and digits of scripts written with spaces between words, and the marks that join them into one token
// (`file_path`, `body-parser`, `program.version`): a quote does not start or end between two of these.
const TOKEN = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{N}_]/u;
const JOINED = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{N}_.\-'/:@]/u;
// A label line the answerer copied from the context along with a quote.
const LABEL_LINE = /(^|\n)Source \d+:[ \t]*(?:\n|$)/g;

// The longest prefix of `text` from `start` that occurs verbatim in `source` (containment is monotone in length).
function longestPrefixIn(text: string, start: number, source: string): number {
  let low = 0;
  let high = Math.min(text.length - start, source.length);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (source.includes(text.slice(start, start + middle))) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** A stretch of an answer and, when it is a verbatim quote of one, the piece it was copied from. */
export interface QuoteSpan {
  text: string;
  source?: CitationSource;
}

/**
 * Cuts an answer made of verbatim quotes into spans: from left to right, the longest stretch found verbatim in one
 * source piece becomes a span of that piece (the earliest source wins a tie); whitespace and stretches found in no
 * piece (or shorter than 4 characters) become spans without a source. `Source N:` label lines copied from the
 * context are dropped; lines that are a source node's metadata (`file_path: docs/a.md`) are kept uncited. Each
 * position is matched by binary search over lengths.
 */
export function verbatimQuoteSpans({
  answer,
  sources,
}: {
  /** The answer text, made of quotes of the sources. */
  answer: string;
  /** The numbered pieces the answerer was shown. */
  sources: readonly CitationSource[];
}): QuoteSpan[] {
  const text = answer.replace(LABEL_LINE, "$1");
  const spans: QuoteSpan[] = [];
  const plain = (piece: string) => {
    const last = spans[spans.length - 1];
    if (last && last.source === undefined) last.text += piece;
    else spans.push({ text: piece });
  };
  // `file_path: docs/a.md` lines the answerer copied from the nodes' metadata: not the pieces' text, not cited.
  const metadataLines = new Set(
    sources.flatMap((source) =>
      Object.entries(source.node.node.metadata ?? {})
        .filter(([, value]) => typeof value === "string" || typeof value === "number")
        .map(([key, value]) => `${key}: ${value}`),
    ),
  );
  let position = 0;
  while (position < text.length) {
    if (position === 0 || text[position - 1] === "\n") {
      const newline = text.indexOf("\n", position);
      const line = text.slice(position, newline === -1 ? text.length : newline);
      if (metadataLines.has(line.trim())) {
        plain(line);
        position += line.length;
        continue;
      }
    }
    const space = /^\s+/.exec(text.slice(position, position + 256))?.[0] ?? "";
    if (space !== "") {
      plain(space);
      position += space.length;
      continue;
    }
    let { best, bestSource } = longestMatch(text, position, sources);
    // At a seam between two quotes the longest match can run on into the next quote's first characters (`é 😀`
    // of `é 😀a`, then `=aaaa` left too short to cite). When it ends inside a word of the answer, it gives those
    // characters back to the next quote if a match from its last space reaches further.
    const after = text[position + best];
    if (after !== undefined && !/\s/u.test(after)) {
      const seam = /\s+\S*$/u.exec(text.slice(position, position + best));
      if (seam && seam.index > 0) {
        const next = position + seam.index + (/^\s+/u.exec(seam[0])?.[0].length ?? 0);
        if (next + longestMatch(text, next, sources).best > position + best) best = seam.index;
      }
    }
    best = atSentenceSeam(text, position, best, sources);
    const quote = wholeTokens(text, position, text.slice(position, position + best)).trimEnd();
    if (bestSource && quote.length >= MIN_QUOTE && CONTENT.test(quote)) {
      spans.push({ text: quote, source: bestSource });
      position += quote.length;
    } else {
      const character = String.fromCodePoint(text.codePointAt(position) ?? 0);
      plain(character);
      position += character.length;
    }
  }
  return spans;
}

// A sentence end inside a match, then whitespace and more text: `addresses. The` of `… addresses. The default is …`.
const SENTENCE_SEAM = /[.!?][)\]"'’”]*(\s+)(?=\S)/gu;

// A match that runs past a sentence end into the first words of the next quote and stops there, mid-sentence
// (`… addresses. The`, because its piece goes on `addresses. The following table …`), ends at that sentence end instead when the match from the next sentence
// reaches at least as far: the next sentence is then one quote, and no marker lands after its first word
// (`The [1] default is …`). `best` is the match's length from `position`; returns the length to use.
function atSentenceSeam(
  text: string,
  position: number,
  best: number,
  sources: readonly CitationSource[],
): number {
  const end = position + best;
  // A match that ends a sentence (or the answer) ends a quote where it should.
  if (end >= text.length || text.slice(end).trim() === "") return best;
  if (/[.!?][)\]"'’”]*$/u.test(text.slice(position, end).trimEnd())) return best;
  let seam: { length: number; next: number } | undefined;
  for (const match of text.slice(position, end).matchAll(SENTENCE_SEAM)) {
    const space = match[1] as string;
    const length = (match.index as number) + match[0].length - space.length;
    seam = { length, next: position + length + space.length };
  }
  if (seam === undefined || seam.next >= end) return best;
  return seam.next + longestMatch(text, seam.next, sources).best >= end ? seam.length : best;
}

// The source holding the longest stretch of `text` from `position` (the earliest one on a tie), and its length.
function longestMatch(
  text: string,
  position: number,
  sources: readonly CitationSource[],
): { best: number; bestSource: CitationSource | undefined } {
  let best = 0;
  let bestSource: CitationSource | undefined;
  for (const source of sources) {
    const length = longestPrefixIn(text, position, source.text);
    if (length > best) {
      best = length;
      bestSource = source;
    }
  }
  return { best, bestSource };
}

// The quote cut back to whole tokens of spaced scripts: none when it starts inside a token (`_path` of
// `file_path`), up to its last space when it ends inside one (`body-parser` of `body-parser__README.md`), so a
// marker never lands inside a word. Text without spaces between words (CJK) is cut anywhere, as before.
function wholeTokens(text: string, position: number, quote: string): string {
  const before = text[position - 1];
  if (before !== undefined && JOINED.test(before) && TOKEN.test(text[position] ?? "")) return "";
  const end = position + quote.length;
  const after = text[end];
  if (after === undefined || !TOKEN.test(after) || !JOINED.test(text[end - 1] ?? "")) return quote;
  const space = quote.search(/\s\S*$/u);
  return space <= 0 ? "" : quote.slice(0, space);
}

/**
 * Adds `[N]` markers to an answer made of verbatim quotes (the offline `ExtractiveLLM`'s): each sentence of each
 * quote found by {@link verbatimQuoteSpans} is followed by the number of the piece it was copied from, so every cited stretch is,
 * by construction, a verbatim substring of the piece it cites. Stretches found in no piece stay unmarked (and are
 * reported `uncited` later).
 * @example citeVerbatimQuotes({ answer: "Water is wet. The sky is red.", sources }) // "Water is wet. [2] The sky is red. [1]"
 */
export function citeVerbatimQuotes(options: {
  /** The answer text, made of quotes of the sources. */
  answer: string;
  /** The numbered pieces the answerer was shown. */
  sources: readonly CitationSource[];
}): string {
  const { answer, sources } = optionsOf("options", options, "{ answer: string, sources: CitationSource[] }");
  checkString("answer", answer);
  checkCitationSources(sources, "sources");
  return citeVerbatimQuoteMarkers({ answer, sources }).text;
}

/**
 * {@link citeVerbatimQuotes} with the markers it added, in order. Only these are citations: a quote that itself
 * holds a bracketed number (`[5]` of a README's reference links) keeps it as quoted text, not read as a marker.
 */
export function citeVerbatimQuoteMarkers(options: { answer: string; sources: readonly CitationSource[] }): {
  text: string;
  markers: CitationMarker[];
} {
  let text = "";
  const markers: CitationMarker[] = [];
  for (const span of verbatimQuoteSpans(options)) {
    if (!span.source) {
      text += span.text;
      continue;
    }
    // A quote of several sentences gets the marker after each, so no sentence of it reads as uncited.
    let from = 0;
    for (const sentence of answerSentences(span.text)) {
      const quoted = span.text.slice(from, sentence.end);
      // After a code block the marker goes on a line of its own: on the closing fence's line (```` ``` [1] ````) it
      // would leave the block unclosed in Markdown, the rest of the answer shown as code.
      text += CLOSING_FENCE.test(quoted) ? `${quoted}\n` : `${quoted} `;
      const marker = `[${span.source.number}]`;
      markers.push({
        text: marker,
        start: text.length,
        end: text.length + marker.length,
        numbers: [span.source.number],
      });
      text += marker;
      from = sentence.end;
    }
    text += span.text.slice(from);
  }
  // Trailing whitespace only: the markers' offsets stay right.
  return { text: text.trimEnd(), markers };
}
