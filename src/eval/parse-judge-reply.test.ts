import { describe, expect, it } from "vitest";
import { parseScore, parseYesNo } from "./parse-judge-reply.js";

describe("parseYesNo", () => {
  it("reads YES or NO as the first word, or as the only one of the two in the reply", () => {
    expect(parseYesNo("YES")).toMatchObject({ ok: true, score: 1 });
    expect(parseYesNo("  no. The context is about pies.")).toMatchObject({ ok: true, score: 0 });
    expect(parseYesNo("**Yes**, supported.")).toMatchObject({ ok: true, score: 1 });
    expect(parseYesNo("The answer is NO")).toMatchObject({ ok: true, score: 0 });
  });

  it("fails on replies LlamaIndex's substring test would pass: both words, neither, 'eyes', nothing", () => {
    for (const reply of ["Maybe", "The eyes have it", "It is not yes or no", "", "   "]) {
      expect(parseYesNo(reply).ok, reply).toBe(false);
    }
  });
});

describe("parseScore", () => {
  it("reads a 1–5 score alone on the first line and the reasoning after it", () => {
    expect(parseScore("4.0\nSame metrics as the reference.")).toEqual({
      ok: true,
      score: 4,
      feedback: "Same metrics as the reference.",
    });
    expect(parseScore("\n2.5\n\nWrong year.")).toEqual({ ok: true, score: 2.5, feedback: "Wrong year." });
    expect(parseScore("5")).toEqual({ ok: true, score: 5, feedback: "" });
  });

  it("fails on no number, a number with words, a score out of range, or nothing", () => {
    for (const reply of ["Score: 4\nok", "four\nok", "4/5\nok", "7\ntoo high", "0.5\nlow", "", "\n\n"]) {
      expect(parseScore(reply).ok, reply).toBe(false);
    }
  });
});
