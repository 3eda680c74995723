import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { Retriever } from "../retrieval/retriever.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { MockLLM } from "../testing/mock-llm.js";
import { twoChunks } from "./eval-chunks.test.util.js";
import { evaluate } from "./evaluate.js";

const chunks: NodeWithScore[] = twoChunks();

/** A retriever that hands out the same two chunks and counts its calls. */
function countingRetriever(): Retriever & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    retrieve: async ({ query }) => {
      calls.push(query);
      return chunks;
    },
  };
}

describe("evaluate", () => {
  it("retrieves each question once and answers it in every mode from the same chunks", async () => {
    const retriever = countingRetriever();
    const llm = new MockLLM({ response: "Compact is the default mode." });
    const report = await evaluate({
      questions: [
        {
          id: "q1",
          query: "What is the default mode?",
          relevant: ["refine.md"],
          answer_hint: "compact",
          reference: "compact",
        },
        { id: "q2", query: "How does refine work?", relevant: ["nowhere.md"], answer_hint: "one by one" },
      ],
      retriever,
      llm,
      modes: ["compact", "refine", "simple_summarize"],
      prices: { input: 1, output: 2 },
    });
    expect(retriever.calls).toEqual(["What is the default mode?", "How does refine work?"]);
    // Two questions × three modes, at least one call each.
    expect(llm.calls.length).toBeGreaterThanOrEqual(6);
    expect(report.retrieval).toMatchObject({ questions: 2, k: 4, hitRate: 0.5, mrr: 0.25, recall: 0.5 });
    expect(report.modes.map((mode) => mode.mode)).toEqual(["compact", "refine", "simple_summarize"]);
    const compact = report.modes[0];
    expect(compact).toMatchObject({
      phraseQuestions: 2,
      phraseShare: 0.5,
      referenceQuestions: 1,
      qualityMetric: "phrase",
    });
    expect(compact?.usage.calls).toBe(2);
    expect(compact?.dollars).toBeCloseTo(
      ((compact?.usage.promptTokens ?? 0) * 1 + (compact?.usage.completionTokens ?? 0) * 2) / 1e6,
      15,
    );
    const q2 = report.questions[1];
    expect(q2?.answers[0]?.failures).toEqual(['answer lacks "one by one"', "no relevant file in the top 4"]);
    expect(q2?.sources.map((source) => source.filePath)).toEqual(["/docs/modes.md", "/docs/refine.md"]);
    expect(report.questions[0]?.answers[0]?.f1).toBeGreaterThan(0);
    expect(report.questions[0]?.answers[0]?.answerTokens).toBeGreaterThan(0);
  });

  it("records a mode that fails on a question as failed there, without stopping the others", async () => {
    const llm = new MockLLM({
      response: ({ prompt }) => {
        if (prompt?.includes("existing answer")) throw new Error("refine server down");
        return "Compact.";
      },
    });
    const report = await evaluate({
      questions: [{ id: "q1", query: "Default?", answer_hint: "compact" }],
      retriever: countingRetriever(),
      llm,
      modes: ["refine", "compact"],
    });
    const [refine, compact] = report.questions[0]?.answers ?? [];
    expect(refine?.error?.message).toMatch(/refine server down/);
    expect(refine?.failures[0]).toMatch(/^refine failed: /);
    expect(refine?.holdsPhrase).toBe(false);
    expect(compact?.holdsPhrase).toBe(true);
    expect(report.modes[0]?.errors).toBe(1);
    expect(report.best?.mode).toBe("compact");
  });

  it("rejects an unknown mode and a k below 1 with typed errors", async () => {
    const base = { questions: [], retriever: countingRetriever(), llm: new MockLLM({ response: "x" }) };
    await expect(evaluate({ ...base, modes: ["compakt" as never] })).rejects.toSatisfy(
      (error) => InvalidArgumentError.isInstance(error) && /compakt/.test((error as Error).message),
    );
    await expect(evaluate({ ...base, k: 0 })).rejects.toThrow(/`k`/);
  });
});

describe("evaluate with a judge", () => {
  it("judges every mode's answer and counts an unreadable verdict as a failure in the totals", async () => {
    const judge = new MockLLM({
      model: "judge",
      response: ({ prompt }) => {
        if (prompt?.includes("expert evaluation system")) return "not a score";
        return "YES";
      },
    });
    const report = await evaluate({
      questions: [{ id: "q1", query: "Default?", reference: "compact" }],
      retriever: countingRetriever(),
      llm: new MockLLM({ response: "Compact." }),
      modes: ["compact", "simple_summarize"],
      judge: { llm: judge },
    });
    for (const mode of report.modes) {
      expect(mode.judges?.faithfulness).toMatchObject({ judged: 1, passRate: 1, failures: 0 });
      expect(mode.judges?.correctness).toMatchObject({ judged: 1, passRate: 0, failures: 1 });
    }
    expect(report.questions[0]?.answers[0]?.failures).toEqual([
      'correctness: unreadable judge reply: expected a score from 1 to 5 on the first line, got "not a score"',
    ]);
  });
});

describe("evaluate with a results file (embedded batch runner)", () => {
  it("resumes: a rerun retrieves and answers only the questions the file does not hold (counted)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ragsynth-eval-"));
    try {
      const resultsFile = join(dir, "results.jsonl");
      const questions = [
        { id: "q1", query: "Default?", answer_hint: "compact" },
        { id: "q2", query: "Refine?", answer_hint: "one by one" },
        { id: "q3", query: "Tree?", answer_hint: "levels" },
      ];
      const firstRetriever = countingRetriever();
      const firstLLM = new MockLLM({ response: "Compact." });
      // A run that stopped after two questions, as a killed one would have.
      const first = await evaluate({
        questions: questions.slice(0, 2),
        retriever: firstRetriever,
        llm: firstLLM,
        modes: ["compact"],
        resultsFile,
      });
      expect(firstRetriever.calls).toHaveLength(2);
      const retriever = countingRetriever();
      const llm = new MockLLM({ response: "Compact." });
      const report = await evaluate({ questions, retriever, llm, modes: ["compact"], resultsFile });
      expect(retriever.calls).toEqual(["Tree?"]);
      expect(llm.calls).toHaveLength(1);
      expect(report.questions.map((question) => question.id)).toEqual(["q1", "q2", "q3"]);
      // The stored results count as before: same answers, same usage.
      expect(report.questions.slice(0, 2)).toEqual(first.questions);
      expect(report.modes[0]).toMatchObject({ questions: 3, phraseQuestions: 3, phraseShare: 1 / 3 });
      expect(report.modes[0]?.usage.calls).toBe(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("evaluate with a results file and another mode set", () => {
  it("answers every question again rather than reuse results that lack the new mode", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ragsynth-eval-"));
    try {
      const resultsFile = join(dir, "results.jsonl");
      const questions = [{ id: "q1", query: "Default?", answer_hint: "compact" }];
      await evaluate({
        questions,
        retriever: countingRetriever(),
        llm: new MockLLM({ response: "Compact." }),
        modes: ["compact"],
        resultsFile,
      });
      const retriever = countingRetriever();
      const report = await evaluate({
        questions,
        retriever,
        llm: new MockLLM({ response: "Compact." }),
        modes: ["compact", "simple_summarize"],
        resultsFile,
      });
      expect(retriever.calls).toEqual(["Default?"]);
      expect(report.questions[0]?.answers.map((answer) => answer.mode)).toEqual([
        "compact",
        "simple_summarize",
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the best mark", () => {
  it("never goes to context_only, whose free 'answer' is the retrieved text itself", async () => {
    const report = await evaluate({
      questions: [{ id: "q1", query: "Default?", answer_hint: "default response mode" }],
      retriever: countingRetriever(),
      llm: new MockLLM({ response: "The default response mode is compact." }),
      modes: ["context_only", "compact"],
    });
    expect(report.modes[0]).toMatchObject({ mode: "context_only", phraseShare: 1 });
    expect(report.modes[0]?.usage.calls).toBe(0);
    expect(report.best?.mode).toBe("compact");
  });
});
