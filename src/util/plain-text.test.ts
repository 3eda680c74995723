import { describe, expect, it } from "vitest";
import { isPlainText, lazyClassTable, PLAIN_CODE_END } from "./plain-text.js";

describe("isPlainText", () => {
  it("takes ASCII, accented letters, Greek and Cyrillic letters and typographic punctuation", () => {
    for (const text of [
      "",
      "plain\ttext\n",
      "naïve café, Ærø",
      "Ωμέγα",
      "Ωμεγα",
      "Жук",
      "“quoted” — ‘so’ … • → ─ € ±",
    ]) {
      expect({ text, plain: isPlainText(text) }).toEqual({ text, plain: true });
    }
  });

  it("leaves to ICU marks, format characters, other scripts, emoji, lone surrogates and the two joiners ICU treats apart", () => {
    for (const text of [
      "e\u0301",
      "soft\u00adhyphen",
      "zero\u200bwidth",
      "東京",
      "한국어",
      "😀",
      "x\ud83d",
      "\u00b8",
      "1\u20442",
      "\ue000",
    ]) {
      expect({ text, plain: isPlainText(text) }).toEqual({ text, plain: false });
    }
  });
});

describe("lazyClassTable", () => {
  it("asks for each code point's class once", () => {
    const asked: string[] = [];
    const classOf = lazyClassTable((char) => {
      asked.push(char);
      return char === "é" ? 2 : 1;
    });
    expect([classOf(0xe9), classOf(0xe9), classOf(0x2014), classOf(PLAIN_CODE_END - 1)]).toEqual([
      2, 2, 1, 1,
    ]);
    expect(asked).toEqual(["é", "—", String.fromCharCode(PLAIN_CODE_END - 1)]);
  });
});
