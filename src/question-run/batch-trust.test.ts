import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkQuestionConfig } from "./batch-trust.js";
import { questionRunConfig } from "./question-run-config.js";

const options = {
  index: "docs/.ragsynth",
  llm: undefined,
  embed: undefined,
  mode: "compact" as const,
  topK: 4,
  contextWindow: undefined,
  numOutput: undefined,
};

describe("a question run's citations setting, as a job carries it", () => {
  it("travels only when asked, and passes the check either way", () => {
    const plain = questionRunConfig(options, "/work");
    const cited = questionRunConfig({ ...options, citations: true }, "/work");
    expect(plain).not.toHaveProperty("citations");
    expect(cited.citations).toBe(true);
    expect(() => checkQuestionConfig(plain)).not.toThrow();
    expect(() => checkQuestionConfig(cited)).not.toThrow();
  });

  it("a job whose citations is not a boolean is refused, naming the field", () => {
    const config = { ...questionRunConfig(options, "/work"), citations: "yes" };
    let caught: unknown;
    try {
      checkQuestionConfig(config);
    } catch (error) {
      caught = error;
    }
    expect(InvalidArgumentError.isInstance(caught)).toBe(true);
    expect((caught as InvalidArgumentError).message).toMatch(/config\.citations.*true or false/);
  });
});
