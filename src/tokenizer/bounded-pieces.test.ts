import { describe, expect, it } from "vitest";
import { BPE_WINDOW, boundedPieces, MAX_RUN } from "./bounded-pieces.js";
import { resolveTokenizer } from "./resolve-tokenizer.js";

const PROSE =
  "The splitter keeps paragraphs together.\n\nIt counts tokens with cl100k_base (GPT-4's encoding); " +
  "see https://example.com/docs?id=42&lang=en for 1,234.5 details — “quoted” text, tabs\tand  double spaces. ";

describe("boundedPieces", () => {
  it("joins back to the text, with no piece over the window and no run over MAX_RUN", () => {
    const text = `${PROSE.repeat(200)}${"QUJD".repeat(3000)} ${PROSE.repeat(50)}`;
    const pieces = boundedPieces(text);
    expect(pieces.join("")).toBe(text);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(BPE_WINDOW);
      expect(Math.max(...piece.split(/\s/).map((run) => run.length))).toBeLessThanOrEqual(MAX_RUN);
    }
  });

  it("counts text with spaces exactly as one whole call would", async () => {
    const { countTokens } = await import("gpt-tokenizer/encoding/cl100k_base");
    const text = PROSE.repeat(300);
    expect(text.length).toBeGreaterThan(BPE_WINDOW * 10);
    expect(resolveTokenizer("cl100k_base").count(text)).toBe(countTokens(text));
  });

  it("counts a long run without spaces in bounded pieces, never fewer tokens than the whole", async () => {
    const { countTokens } = await import("gpt-tokenizer/encoding/cl100k_base");
    const run = "x9Yb".repeat(1000);
    expect(boundedPieces(run).length).toBeGreaterThan(1);
    expect(resolveTokenizer("cl100k_base").count(run)).toBeGreaterThanOrEqual(countTokens(run));
    expect(resolveTokenizer("cl100k_base").encode(run).length).toBe(
      resolveTokenizer("cl100k_base").count(run),
    );
  });
});
