import { describe, expect, it } from "vitest";
import { parseChoiceSelectAnswer } from "./parse-choice-select-answer.js";

describe("parseChoiceSelectAnswer", () => {
  it("reads LlamaIndex's answer format", () => {
    expect(
      parseChoiceSelectAnswer("Doc: 9, Relevance: 7\nDoc: 3, Relevance: 4\nDoc: 7, Relevance: 3", 10),
    ).toEqual({
      choices: [
        { document: 9, relevance: 7 },
        { document: 3, relevance: 4 },
        { document: 7, relevance: 3 },
      ],
      ignoredLines: [],
      malformedLines: [],
    });
  });

  it("tolerates case, spacing, markdown, decimals and prose around the lines", () => {
    const answer = [
      "Sure! Here are the relevant documents:",
      "",
      "  - **Doc 2**, relevance score: 8.5",
      "DOCUMENT #1 - RELEVANCE=6",
      "doc:4,relevance:2/10",
      "These cover the question.",
    ].join("\r\n");
    expect(parseChoiceSelectAnswer(answer, 4).choices).toEqual([
      { document: 2, relevance: 8.5 },
      { document: 1, relevance: 6 },
      { document: 4, relevance: 2 },
    ]);
  });

  it("ignores out-of-range numbers, including 0 and negatives (LlamaIndex indexes -1 into the batch)", () => {
    const parsed = parseChoiceSelectAnswer(
      "Doc: 0, Relevance: 9\nDoc: -1, Relevance: 9\nDoc: 4, Relevance: 9\nDoc: 2, Relevance: 5",
      3,
    );
    expect(parsed.choices).toEqual([{ document: 2, relevance: 5 }]);
    expect(parsed.ignoredLines).toHaveLength(3);
  });

  it("keeps the first line for a repeated document", () => {
    const parsed = parseChoiceSelectAnswer("Doc: 2, Relevance: 5\nDoc: 2, Relevance: 9", 3);
    expect(parsed.choices).toEqual([{ document: 2, relevance: 5 }]);
    expect(parsed.ignoredLines).toEqual(["Doc: 2, Relevance: 9"]);
  });

  it("reports a line that names a document without a score (LlamaIndex skips or crashes on it)", () => {
    const parsed = parseChoiceSelectAnswer("Doc: 2, Relevance: high\nDocument 3 is the best one", 3);
    expect(parsed.choices).toEqual([]);
    expect(parsed.malformedLines).toEqual(["Doc: 2, Relevance: high", "Document 3 is the best one"]);
  });

  it("finds nothing in an empty answer or in prose that names no document", () => {
    expect(parseChoiceSelectAnswer("", 3)).toEqual({ choices: [], ignoredLines: [], malformedLines: [] });
    expect(parseChoiceSelectAnswer("None of the documents are relevant.", 3).choices).toEqual([]);
  });
});
