import type { LocationRange } from "../schema/node-location.js";

/**
 * A function giving the 1-based line range of a character range of `text` (end exclusive), by binary search
 * over the text's line starts (found once).
 */
export function textLocation(text: string): (start: number, end: number) => LocationRange {
  const lineStarts = [0];
  for (let index = text.indexOf("\n"); index >= 0; index = text.indexOf("\n", index + 1)) {
    lineStarts.push(index + 1);
  }
  const lineOf = (offset: number): number => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((lineStarts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  return (start, end) => {
    const first = lineOf(start);
    return { start: first, end: Math.max(first, lineOf(Math.max(start, end - 1))) };
  };
}
