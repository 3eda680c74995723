import { describe, expect, it } from "vitest";
import { BatchInputError } from "../batch/batch-input-error.js";
import { parseEvalQuestions } from "./eval-questions.js";

describe("parseEvalQuestions", () => {
  it("reads each label, skips blank lines and takes one relevant string as a list", () => {
    const text = [
      '{"id":"q1","query":"Default mode?","relevant":["docs/cli.md"],"reference":"compact","answer_hint":"compact"}',
      "",
      '{"id":2,"query":"What is refine?","relevant":"refine.md"}',
    ].join("\n");
    expect(parseEvalQuestions(text)).toEqual([
      {
        id: "q1",
        query: "Default mode?",
        relevant: ["docs/cli.md"],
        reference: "compact",
        answer_hint: "compact",
      },
      { id: "2", query: "What is refine?", relevant: ["refine.md"] },
    ]);
  });

  it("names the line of a bad label, after blank lines too", () => {
    const text = '{"id":"q1","query":"a"}\n\n\n{"id":"q2","query":"b","relevant":[3]}\n';
    const error = (() => {
      try {
        parseEvalQuestions(text);
      } catch (caught) {
        return caught;
      }
    })();
    expect(BatchInputError.isInstance(error)).toBe(true);
    expect((error as BatchInputError).line).toBe(4);
    expect((error as Error).message).toMatch(
      /^Line 4: question "q2" has `relevant` \[3\]; expected a non-empty array/,
    );
  });

  it("rejects an empty answer_hint or reference, and keeps the batch rules (query required, unique ids)", () => {
    expect(() => parseEvalQuestions('{"id":"q1","query":"a","answer_hint":""}')).toThrow(
      /`answer_hint` ""; expected a non-empty string/,
    );
    expect(() => parseEvalQuestions('{"id":"q1","query":"a","reference":5}')).toThrow(
      /Line 1: .*`reference` 5/,
    );
    expect(() => parseEvalQuestions('{"id":"q1"}')).toThrow(/needs a non-empty string `query`/);
    expect(() => parseEvalQuestions('{"id":"q1","query":"a"}\n{"id":"q1","query":"b"}')).toThrow(
      /Line 2: id "q1" was already used/,
    );
  });
});
