import { RESPONSE_MODES } from "ragsynth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli } from "./run-cli.js";

const QUESTION = "What is the default response mode?";
// A small window, so that most modes need several calls and refine steps feel the answer's length.
const BUDGET = ["--context-window", "600", "--num-output", "64", "--top-k", "5"];
let docs: string;
let cleanup: () => Promise<void>;

interface PlanJSON {
  budget: { contextWindow: number; numOutput: number };
  chunks: Array<{ tokens: number; file: string }>;
  modes: Array<{
    mode: string;
    exact: boolean;
    llmCalls: { min: number; max: number };
    promptTokens: { min: number; max: number };
  }>;
}

beforeAll(async () => {
  ({ docs, cleanup } = await copyExampleDocs());
  const indexed = await runCli(["index", docs]);
  expect(indexed.code, indexed.stderr).toBe(0);
});
afterAll(() => cleanup());

describe("ragsynth plan", () => {
  it("predicts the LLM calls ask then makes: exact where they do not depend on answers, a range that holds otherwise", async () => {
    const planned = await runCli(["plan", docs, "-q", QUESTION, ...BUDGET, "--json"]);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as PlanJSON;
    expect(plan.budget).toMatchObject({ contextWindow: 600, numOutput: 64 });
    expect(plan.modes.map((entry) => entry.mode)).toEqual([...RESPONSE_MODES]);
    const byMode = new Map(plan.modes.map((entry) => [entry.mode, entry]));
    for (const mode of [
      "simple_summarize",
      "generation",
      "accumulate",
      "compact_accumulate",
      "no_text",
      "context_only",
    ]) {
      expect(byMode.get(mode)?.exact, mode).toBe(true);
    }
    // With this budget, refine and compact need more than one call, and compact fewer than refine.
    expect(byMode.get("refine")?.llmCalls.min).toBeGreaterThan(1);
    expect(byMode.get("compact")?.llmCalls.min).toBeLessThan(byMode.get("refine")?.llmCalls.min ?? 0);

    const asked = await Promise.all(
      RESPONSE_MODES.map((mode) =>
        runCli(["ask", docs, "-q", QUESTION, ...BUDGET, "--mode", mode, "--json"]),
      ),
    );
    for (const [index, mode] of RESPONSE_MODES.entries()) {
      const run = asked[index];
      expect(run?.code, `${mode}: ${run?.stderr}`).toBe(0);
      const { usage } = JSON.parse(run?.stdout ?? "");
      const predicted = byMode.get(mode);
      if (predicted?.exact) {
        expect(usage.llmCalls, mode).toBe(predicted.llmCalls.min);
        expect(usage.promptTokens, mode).toBe(predicted.promptTokens.min);
      }
      expect(usage.llmCalls, mode).toBeGreaterThanOrEqual(predicted?.llmCalls.min ?? Number.NaN);
      expect(usage.llmCalls, mode).toBeLessThanOrEqual(predicted?.llmCalls.max ?? Number.NaN);
    }
  });

  it("draws the side-by-side table, with costs when prices are given", async () => {
    const { code, stdout, stderr } = await runCli([
      "plan",
      docs,
      "-q",
      QUESTION,
      ...BUDGET,
      "--price-in",
      "0.15",
      "--price-out",
      "0.6",
      "--llm",
      "extractive",
    ]);
    expect(code, stderr).toBe(0);
    expect(stderr).toBe("");
    const lines = stdout.split("\n");
    const header = lines.findIndex((line) => line.startsWith("mode "));
    expect(lines[header]).toMatch(
      /^mode +LLM calls +prompt tokens +completion ≤ +cost \(USD\) +context per call \(tokens\)$/,
    );
    for (const [offset, mode] of RESPONSE_MODES.entries()) {
      expect(lines[header + 1 + offset]).toMatch(new RegExp(`^${mode} +[\\d–]+ +[\\d,–]+ +[\\d,]+ +\\$`));
    }
    expect(stdout).toMatch(
      /Retrieved 5 chunks, [\d,]+ tokens:\n +\[1\] +\d+\.\d{3} +[\d,]+ tokens +\S*docs\/response-modes\.md/,
    );
    expect(stdout).toContain("no model was called");
  });

  it("plans only the modes asked for", async () => {
    const { code, stdout } = await runCli([
      "plan",
      docs,
      "-q",
      QUESTION,
      "--mode",
      "refine,tree_summarize",
      "--json",
    ]);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as PlanJSON).modes.map((entry) => entry.mode)).toEqual([
      "refine",
      "tree_summarize",
    ]);
  });
});
