// Bounded windows over unbounded text, so that a pass whose cost grows faster than its input
// (Intl.Segmenter copies its input into every segment; BPE is quadratic in a piece) stays linear.

/** The most characters a windowed segmenter or tokenizer call receives. */
export const TEXT_WINDOW = 2048;

/** Where a window may end: before `text[index]`. */
export type CutRule = (text: string, index: number) => boolean;

const CJK_PUNCTUATION = /[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]/;

/** After whitespace or CJK punctuation: never inside a word of text with or without spaces. */
export const afterBreak: CutRule = (text, index) => {
  const previous = text[index - 1] as string;
  return /\s/.test(previous) || CJK_PUNCTUATION.test(previous);
};

/**
 * `[start, end)` windows that cover `text` in order, each at most `size` characters. A window ends at
 * the last place `isCut` allows in its final quarter, else at `size` (never inside a surrogate pair):
 * a run longer than that without a cut is cut anyway. Scanning back at most a quarter window keeps
 * the total work linear.
 */
export function textWindows(
  text: string,
  size: number = TEXT_WINDOW,
  isCut: CutRule = afterBreak,
): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  let start = 0;
  while (start < text.length) {
    let end = start + size;
    if (end >= text.length) {
      end = text.length;
    } else {
      let cut = end;
      const floor = end - Math.max(1, Math.floor(size / 4));
      while (cut > floor && !isCut(text, cut)) cut--;
      end = cut > floor ? cut : codePointBoundary(text, end, start);
    }
    windows.push([start, end]);
    start = end;
  }
  return windows;
}

/** The windows' texts: {@link textWindows} sliced. */
export function textWindowSlices(text: string, size: number = TEXT_WINDOW, isCut: CutRule = afterBreak) {
  return text.length <= size ? [text] : textWindows(text, size, isCut).map(([s, e]) => text.slice(s, e));
}

/** `offset`, or one less when it would split a surrogate pair (but never back to `floor`). */
function codePointBoundary(text: string, offset: number, floor: number): number {
  const code = text.charCodeAt(offset - 1);
  return code >= 0xd800 && code <= 0xdbff && offset - 1 > floor ? offset - 1 : offset;
}
