import { describe, expect, it } from "vitest";
import { citedAnswerParts, renderCitedAnswer } from "./cited-answer.js";

const identity = (text: string) => text;
const ANSWER = "Water is wet [2]. Penguins juggle [1, 2]. Done.";

describe("the trace page's cited answer", () => {
  it("cuts the answer at its markers and links each number to its source card", () => {
    const parts = citedAnswerParts(
      ANSWER,
      [
        { offset: 13, marker: "[2]", source: 2, unsupported: false, score: "lexical 1.00" },
        { offset: 34, marker: "[1, 2]", source: 1, unsupported: true, score: "lexical 0.00" },
        { offset: 34, marker: "[1, 2]", source: 2, unsupported: true },
      ],
      identity,
      4000,
    );
    expect(parts).toEqual([
      { text: "Water is wet " },
      { marker: "[2]", links: [{ source: 2, unsupported: false, score: "lexical 1.00" }] },
      { text: ". Penguins juggle " },
      {
        marker: "[1, 2]",
        links: [
          { source: 1, unsupported: true, score: "lexical 0.00" },
          { source: 2, unsupported: true },
        ],
      },
      { text: ". Done." },
    ]);
    const html = renderCitedAnswer(parts);
    expect(html).toContain('<a class="cite" href="#source-2" data-source="1"');
    expect(html).toContain('<a class="cite unsupported" href="#source-1" data-source="0"');
    // Nothing of the answer is lost: the page's text reads as the answer (unsupported numbers carry a "?").
    expect(html.replace(/<[^>]+>/g, "").replace(/\?/g, "")).toBe(ANSWER);
  });

  it("ignores a citation whose marker is not at its offset, escapes text, and scrubs each stretch", () => {
    const parts = citedAnswerParts(
      "<b>sk-secret</b> [1]",
      [
        { offset: 17, marker: "[1]", source: 1, unsupported: false },
        { offset: 3, marker: "[9]", source: 9, unsupported: false },
      ],
      (text) => text.replace("sk-secret", "[REDACTED]"),
      4000,
    );
    expect(parts.filter((part) => "marker" in part)).toHaveLength(1);
    const html = renderCitedAnswer(parts);
    expect(html).toContain("&lt;b&gt;[REDACTED]&lt;/b&gt; ");
    expect(html).not.toContain("sk-secret");
  });

  it("keeps at most the limit of text", () => {
    const parts = citedAnswerParts(
      `${"a".repeat(50)} [1] ${"b".repeat(50)}`,
      [{ offset: 51, marker: "[1]", source: 1, unsupported: false }],
      identity,
      20,
    );
    expect(parts).toEqual([{ text: "a".repeat(20) }]);
  });
});
