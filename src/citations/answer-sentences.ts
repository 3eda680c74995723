import { MARKER } from "./citation-markers.js";

/** One sentence of an answer, with its range in the shown text. */
export interface AnswerSentence {
  /** The sentence as shown, markers included, trimmed. */
  text: string;
  start: number;
  end: number;
}

// A sentence ends after `.`, `!` or `?` followed by whitespace, after CJK full stops, at a blank line, or at a line
// break before a list item, heading or table row. Other line breaks are hard-wrapped prose, not sentence ends.
const BOUNDARY = /[.!?]+(?=\s)|[。！？]+|\n[ \t]*\n\s*|\n(?=[ \t]*(?:[-*+][ \t]|\d+[.)][ \t]|#|\|))/g;
const LEADING_MARKERS = new RegExp(`^(?:\\s*${MARKER.source})+[.,;:]?`);
const CONTENT = /[\p{L}\p{N}]/u;
// A fenced code block (closed, or running to the end) is one sentence: its lines are not cut apart.
const FENCE = /(?:^|\n)(```|~~~)[^\n]*\n[\s\S]*?(?:\n\1[^\n]*(?=\n|$)|$)/g;

/**
 * Cuts an answer into sentences; a fenced code block stays whole. Markers written after a sentence's full stop (`… red. [2] Next …`) belong to
 * the sentence before them, as readers take them. Pieces with no letter or digit are dropped.
 */
export function answerSentences(text: string): AnswerSentence[] {
  const pieces: AnswerSentence[] = [];
  let start = 0;
  const cut = (end: number) => {
    if (end <= start) return;
    pieces.push({ text: text.slice(start, end), start, end });
    start = end;
  };
  const fences = [...text.matchAll(FENCE)].map(
    (match) => [match.index, match.index + match[0].length] as const,
  );
  const inFence = (offset: number) => fences.some(([from, to]) => offset > from && offset < to);
  const ends: number[] = fences.flat();
  for (const match of text.matchAll(BOUNDARY))
    if (!inFence(match.index)) ends.push(match.index + match[0].length);
  for (const end of ends.sort((a, b) => a - b)) cut(end);
  cut(text.length);
  const merged: AnswerSentence[] = [];
  for (const piece of pieces) {
    const previous = merged[merged.length - 1];
    const leading = new RegExp(LEADING_MARKERS.source).exec(piece.text);
    if (previous && leading) {
      const end = piece.start + leading[0].length;
      previous.text = text.slice(previous.start, end);
      previous.end = end;
      piece.text = text.slice(end, piece.end);
      piece.start = end;
    }
    merged.push(piece);
  }
  const sentences: AnswerSentence[] = [];
  for (const piece of merged) {
    const trimmedStart = piece.start + (piece.text.length - piece.text.trimStart().length);
    const trimmed = piece.text.trim();
    if (!CONTENT.test(trimmed.replace(new RegExp(MARKER.source, "g"), ""))) continue;
    sentences.push({ text: trimmed, start: trimmedStart, end: trimmedStart + trimmed.length });
  }
  return sentences;
}
