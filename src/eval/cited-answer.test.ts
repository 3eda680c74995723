import { describe, expect, it } from "vitest";
import type { Retriever } from "../retrieval/retriever.js";
import { MockLLM } from "../testing/mock-llm.js";
import { twoChunks } from "./eval-chunks.test.util.js";
import { evaluate } from "./evaluate.js";
import { renderEvalPage } from "./render-eval-page.js";

const retriever: Retriever = { retrieve: async () => twoChunks() };

describe("evaluate with citations", () => {
  it("answers from numbered pieces with the citation prompt and counts good, off-file, unsupported and invalid citations", async () => {
    const prompts: string[] = [];
    const llm = new MockLLM({
      response: ({ prompt }) => {
        prompts.push(prompt ?? "");
        return "Compact is the default response mode [1]. Refine walks the chunks one by one [2]. Bananas are purple [1]. Also this [9].";
      },
    });
    const report = await evaluate({
      questions: [{ id: "q1", query: "Default mode?", relevant: ["modes.md"], answer_hint: "compact" }],
      retriever,
      llm,
      modes: ["compact", "generation"],
      citations: true,
    });
    // LlamaIndex's citation prompt, the chunks as numbered pieces.
    expect(prompts[0]).toMatch(/Source 1:\nCompact is the default response mode\./);
    expect(prompts[0]).toMatch(/Source 2:\nRefine walks/);
    expect(prompts[0]).toMatch(/cite the appropriate source/i);
    const [compact, generation] = report.questions[0]?.answers ?? [];
    expect(compact?.citations).toEqual({
      citations: 3,
      fromRelevant: 2,
      unsupported: 1,
      invalid: 1,
      uncited: 1,
    });
    // The marker naming no piece is gone from the answer shown and scored.
    expect(compact?.answer).not.toContain("[9]");
    expect(compact?.failures).toEqual(["1 unsupported citation(s)", "1 citation(s) naming no source"]);
    // generation answers without the pieces: nothing to check.
    expect(generation?.citations).toBeUndefined();
    expect(report.modes[0]?.citations).toEqual({
      answers: 1,
      citing: 1,
      citations: 3,
      precision: 2 / 3,
      unsupportedShare: 1 / 3,
      invalid: 1,
      uncited: 1,
    });
    expect(report.modes[1]?.citations).toBeUndefined();
    // The report page's mode table carries them too.
    const page = renderEvalPage(report);
    expect(page).toContain("<th>cited from relevant</th>");
    expect(page).toMatch(/<td>3<\/td><td>67%<\/td><td>33%<\/td>/);
  });

  it("has no citation figures without the option, and its prompt names no sources", async () => {
    const llm = new MockLLM({ response: "Compact [1]." });
    const report = await evaluate({
      questions: [{ id: "q1", query: "Default mode?" }],
      retriever,
      llm,
      modes: ["compact"],
    });
    expect(report.modes[0]?.citations).toBeUndefined();
    expect(llm.calls[0]?.prompt).not.toMatch(/Source 1:/);
  });
});
