import { checkInteger } from "../errors/check-integer.js";
import { optionsOf } from "../errors/check-options.js";
import { checkString } from "../errors/check-string.js";
import { isMarkerPrefix, isWholeMarker, markerNumbers } from "./citation-markers.js";

/** A marker that named a source the model was never given. */
export interface InvalidCitation {
  /** The marker as the model wrote it: `[7]`, or `[1, 7]` when only 7 is invalid. */
  marker: string;
  /** The numbers in it that name no source. */
  numbers: number[];
  /** Where the marker was (or what is left of it is) in the shown text. */
  offset: number;
}

/**
 * Removes invalid citation numbers from an answer as it streams: `[1, 9]` becomes `[1]` and `[9]` disappears
 * (with the whitespace before it) when there are fewer than 9 sources. A delta may end inside a marker (`[1`
 * then `2]`): the partial marker is held back until it is complete or cannot be one. Pushing a whole text at once
 * gives the same result as pushing it in any pieces.
 * @example
 * const cleaner = new CitationTextCleaner({ sourceCount: 2 });
 * cleaner.push("Wet [") + cleaner.push("9] when red [2].") + cleaner.end() // "Wet when red [2]."
 */
export class CitationTextCleaner {
  /** Every marker with a number that names no source, in order. */
  readonly invalid: InvalidCitation[] = [];
  private readonly sourceCount: number;
  private shown = 0;
  private space = "";
  private marker: string | undefined;

  constructor(options: { /** Sources are numbered 1 to `sourceCount`. */ sourceCount: number }) {
    const { sourceCount } = optionsOf("options", options, "{ sourceCount: number }");
    checkInteger("sourceCount", sourceCount, 0);
    this.sourceCount = sourceCount;
  }

  /** Feeds a delta; returns the text that can be shown now (possibly `""`). */
  push(delta: string): string {
    checkString("delta", delta);
    let out = "";
    for (const character of delta) out += this.step(character);
    return out;
  }

  /** Flushes what was held back at the end of the answer. */
  end(): string {
    const out = this.space + (this.marker ?? "");
    this.space = "";
    this.marker = undefined;
    this.shown += out.length;
    return out;
  }

  private step(character: string): string {
    if (this.marker !== undefined) {
      const candidate = this.marker + character;
      if (isWholeMarker(candidate)) {
        this.marker = undefined;
        return this.resolve(candidate);
      }
      if (isMarkerPrefix(candidate)) {
        this.marker = candidate;
        return "";
      }
      const text = this.space + this.marker;
      this.space = "";
      this.marker = undefined;
      this.shown += text.length;
      return text + this.step(character);
    }
    if (/\s/u.test(character)) {
      this.space += character;
      return "";
    }
    if (character === "[") {
      this.marker = "[";
      return "";
    }
    const text = this.space + character;
    this.space = "";
    this.shown += text.length;
    return text;
  }

  private resolve(marker: string): string {
    const numbers = markerNumbers(marker);
    const valid = numbers.filter((number) => number >= 1 && number <= this.sourceCount);
    const invalid = numbers.filter((number) => number < 1 || number > this.sourceCount);
    let kept = marker;
    if (invalid.length > 0) kept = valid.length === 0 ? "" : `[${[...new Set(valid)].join(", ")}]`;
    const text = kept === "" ? "" : this.space + kept;
    if (invalid.length > 0)
      this.invalid.push({
        marker,
        numbers: invalid,
        offset: this.shown + (kept === "" ? 0 : this.space.length),
      });
    this.space = "";
    this.shown += text.length;
    return text;
  }
}

/**
 * The text shown for a whole answer, and its invalid markers: {@link CitationTextCleaner} in one call, repeated
 * while a removal joined brackets into a new invalid marker (`[2[9]]` → `[2]` with no source 2), so no marker
 * in the result names a missing source.
 */
export function cleanCitationText(options: { text: string; sourceCount: number }): {
  text: string;
  invalid: InvalidCitation[];
} {
  const { text, sourceCount } = optionsOf("options", options, "{ text: string, sourceCount: number }");
  checkString("text", text);
  const invalid: InvalidCitation[] = [];
  let shown = text;
  for (let pass = 0; pass < 8; pass++) {
    const cleaner = new CitationTextCleaner({ sourceCount });
    const next = cleaner.push(shown) + cleaner.end();
    invalid.push(...cleaner.invalid);
    if (cleaner.invalid.length === 0 || next === shown) return { text: next, invalid };
    shown = next;
  }
  return { text: shown, invalid };
}
