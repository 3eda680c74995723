import { describe, expect, it } from "vitest";
import { joinSentences } from "./join-sentences.js";

describe("joinSentences", () => {
  it("joins with one space, but not between Chinese or Japanese sentences; trims and drops empty ones", () => {
    expect(joinSentences([" One. ", "", "Two."])).toBe("One. Two.");
    expect(joinSentences(["巴黎是法国的首都。", "柏林是德国的首都。", "Rome is in Italy."])).toBe(
      "巴黎是法国的首都。柏林是德国的首都。 Rome is in Italy.",
    );
    expect(joinSentences(["東京は日本の首都です。", "大阪は大きい。"])).toBe(
      "東京は日本の首都です。大阪は大きい。",
    );
    // A character outside the Basic Multilingual Plane (CJK Extension B) counts as Chinese too.
    expect(joinSentences(["𠀀。", "𠀁。"])).toBe("𠀀。𠀁。");
    expect(joinSentences([])).toBe("");
  });
});
