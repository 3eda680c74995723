import { checkString } from "../errors/check-string.js";
/** One `[N]`, `[N, M]` or `[N–M]` marker found in a text. */
export interface CitationMarker {
  /** The marker as written: `[1, 3]`. */
  text: string;
  /** Offset of `[` in the text. */
  start: number;
  /** Offset just after `]`. */
  end: number;
  /** The source numbers it names, ranges expanded, in the order written. */
  numbers: number[];
}

/** A whole marker: numbers separated by `,`/`;`, or ranges with `-`, `–` or `—`. */
export const MARKER = /\[\s*\d{1,9}(?:\s*[,;\-–—]\s*\d{1,9})*\s*\]/g;
// What a marker looks like before its `]` has arrived (a stream delta may end anywhere in it).
const MARKER_PREFIX = /^\[\s*(?:\d{1,9}(?:\s*[,;\-–—]\s*\d{0,9})*\s*)?$/;
const WHOLE_MARKER = new RegExp(`^${MARKER.source}$`);
/** A marker longer than this is not waited for: it is shown as text. */
export const MAX_MARKER_LENGTH = 64;
/** A range spanning more numbers than this keeps only its two ends (`[1-99999]` would be 99,999 citations). */
const MAX_RANGE = 100;

/** The numbers a marker names: `[1, 3–5]` → 1, 3, 4, 5. */
export function markerNumbers(marker: string): number[] {
  const numbers: number[] = [];
  for (const part of marker.slice(1, -1).split(/[,;]/)) {
    const ends = part
      .split(/[-–—]/)
      .map((end) => end.trim())
      .filter((end) => end !== "")
      .map(Number);
    const low = ends[0];
    const high = ends[ends.length - 1];
    if (low === undefined || high === undefined) continue;
    if (ends.length === 1 || low === high) numbers.push(low);
    else if (high > low && high - low <= MAX_RANGE)
      for (let number = low; number <= high; number++) numbers.push(number);
    else numbers.push(low, high);
  }
  return numbers;
}

/**
 * Every citation marker in `text`, in order: `[2]`, `[1, 3]`, `[2-4]` and `[2–4]` (ranges expanded). Brackets
 * holding anything else (`[a]`, `[1.5]`, `[]`) are not markers. Pure and linear in the text.
 * @example parseCitationMarkers("Wet when red [2], in the evening [1].") // markers for 2 and 1
 */
export function parseCitationMarkers(text: string): CitationMarker[] {
  checkString("text", text);
  const markers: CitationMarker[] = [];
  for (const match of text.matchAll(MARKER)) {
    markers.push({
      text: match[0],
      start: match.index,
      end: match.index + match[0].length,
      numbers: markerNumbers(match[0]),
    });
  }
  return markers;
}

/** Whether `text` could still become a marker once more characters arrive. */
export function isMarkerPrefix(text: string): boolean {
  return text.length <= MAX_MARKER_LENGTH && MARKER_PREFIX.test(text);
}

/** Whether `text` is exactly one marker. */
export function isWholeMarker(text: string): boolean {
  return WHOLE_MARKER.test(text);
}
