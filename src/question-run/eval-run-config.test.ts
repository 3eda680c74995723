import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkEvalRunConfig, type EvalRunConfig } from "./eval-run-config.js";

const VALID: EvalRunConfig = {
  index: "/srv/docs/.ragsynth",
  llm: null,
  embed: null,
  modes: ["compact", "refine"],
  topK: 4,
  retrieval: null,
  similarityCutoff: null,
  optimizer: { percentileCutoff: 0.5 },
  contextWindow: null,
  numOutput: null,
  judge: null,
  prices: { input: 0.15, output: 0.6 },
  citations: false,
};

describe("checkEvalRunConfig (an eval job's settings are untrusted)", () => {
  it("passes the settings a submitter writes", () => {
    expect(checkEvalRunConfig(VALID)).toEqual(VALID);
  });

  it.each([
    ["an unknown field", { ...VALID, apiKey: "sk-x" }, /config\.apiKey.*not be there/],
    ["a missing field", { ...VALID, modes: undefined as never }, /config\.modes/],
    [
      "an unknown mode",
      { ...VALID, modes: ["compact", "drop_tables"] },
      /config\.modes\[1\].*response modes/,
    ],
    ["no mode", { ...VALID, modes: [] }, /config\.modes.*1 to 9/],
    ["a top-k of 0", { ...VALID, topK: 0 }, /config\.topK/],
    ["another retrieval", { ...VALID, retrieval: "grep" }, /config\.retrieval/],
    ["a negative price", { ...VALID, prices: { input: -1, output: 0 } }, /config\.prices/],
    ["an optimizer key", { ...VALID, optimizer: { keep: 1 } }, /config\.optimizer/],
    ["a long model spec", { ...VALID, judge: "x".repeat(5000) }, /config\.judge/],
  ])("refuses %s with a typed error naming the field", (_, config, message) => {
    let thrown: unknown;
    try {
      checkEvalRunConfig(config as never);
    } catch (error) {
      thrown = error;
    }
    expect(InvalidArgumentError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(message);
  });

  it("refuses a config that is not an object", () => {
    expect(() => checkEvalRunConfig(["compact"])).toThrow(/`config`.*be an object/);
  });
});
