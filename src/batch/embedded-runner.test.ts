import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { LLMError } from "../errors/llm-error.js";
import { createEmbeddedRunner } from "./embedded-runner.js";
import type { BatchItem, BatchProcessor } from "./types.js";

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "ragsynth-batch-"));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const items = (count: number): BatchItem[] =>
  Array.from({ length: count }, (_, index) => ({ id: `q${index}`, query: `question ${index}` }));

function countingProcessor() {
  const seen: string[] = [];
  const processor: BatchProcessor = async (item) => {
    seen.push(item.id);
    return {
      value: `answer to ${item.query}`,
      usage: { llmCalls: 1, promptTokens: 10, completionTokens: 2, retries: 0 },
    };
  };
  return { seen, processor };
}

describe("createEmbeddedRunner", () => {
  it("answers every item once, in input order, and a rerun skips them all", async () => {
    const out = join(folder, "answers.jsonl");
    const { seen, processor } = countingProcessor();
    const runner = createEmbeddedRunner({ processors: { question: processor }, out, concurrency: 3 });
    const outcome = await runner.run({ runId: "r", kind: "question", items: items(25) });
    expect(outcome.results.map((result) => result.id)).toEqual(items(25).map((item) => item.id));
    expect(outcome.progress).toMatchObject({ done: 25, failed: 0, promptTokens: 250 });
    expect(new Set(seen).size).toBe(25);
    expect(seen).toHaveLength(25);
    const lines = (await readFile(out, "utf8")).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).id)).toEqual(items(25).map((item) => item.id));

    const again = await runner.run({ runId: "r", kind: "question", items: items(25) });
    expect(seen).toHaveLength(25);
    expect(again.progress.skipped).toBe(25);
    expect(again.results[3]?.value).toBe("answer to question 3");
  });

  it("resumes from a file cut short by a kill: finished ids are skipped, a torn line is redone", async () => {
    const out = join(folder, "answers.jsonl");
    const done = [0, 1, 2].map((index) => JSON.stringify({ id: `q${index}`, ok: true, value: "earlier" }));
    await writeFile(out, `${done.join("\n")}\n{"id":"q3","ok":tr`);
    const { seen, processor } = countingProcessor();
    const runner = createEmbeddedRunner({ processors: { question: processor }, out });
    const outcome = await runner.run({ runId: "r", kind: "question", items: items(6) });
    expect(seen.sort()).toEqual(["q3", "q4", "q5"]);
    expect(outcome.results.map((result) => result.value)).toEqual([
      "earlier",
      "earlier",
      "earlier",
      "answer to question 3",
      "answer to question 4",
      "answer to question 5",
    ]);
  });

  it("retries a transient failure with backoff, records a lasting one with its typed error, finishes the rest", async () => {
    const out = join(folder, "answers.jsonl");
    const attempts = new Map<string, number>();
    const processor: BatchProcessor = async (item) => {
      attempts.set(item.id, (attempts.get(item.id) ?? 0) + 1);
      if (item.id === "q1") {
        throw new LLMError({ code: "llm_server_error", message: "boom", status: 500, retryable: true });
      }
      if (item.id === "q2" && attempts.get(item.id) === 1) {
        throw new LLMError({ code: "llm_unreachable", message: "down", retryable: true });
      }
      if (item.id === "q3") throw new InvalidArgumentError({ parameter: "x", value: 1, expected: "be 2" });
      return { value: "ok" };
    };
    const runner = createEmbeddedRunner({
      processors: { question: processor },
      out,
      attempts: 3,
      backoffMs: 1,
    });
    const outcome = await runner.run({ runId: "r", kind: "question", items: items(5) });
    expect(attempts.get("q1")).toBe(3);
    expect(attempts.get("q2")).toBe(2);
    expect(attempts.get("q3")).toBe(1);
    expect(outcome.results[1]).toMatchObject({ ok: false, error: { code: "llm_server_error", attempts: 3 } });
    expect(outcome.results[3]).toMatchObject({ ok: false, error: { code: "invalid_argument", attempts: 1 } });
    expect(outcome.progress).toMatchObject({ done: 3, failed: 2 });

    // A rerun tries the failed items again and skips the rest.
    attempts.clear();
    await runner.run({ runId: "r", kind: "question", items: items(5) });
    expect([...attempts.keys()].sort()).toEqual(["q1", "q3"]);
  });

  it("stops on abort, keeping what finished, and the next run does only the rest", async () => {
    const out = join(folder, "answers.jsonl");
    const controller = new AbortController();
    let calls = 0;
    const processor: BatchProcessor = async (item) => {
      calls += 1;
      if (calls === 5) controller.abort();
      return { value: item.id };
    };
    const runner = createEmbeddedRunner({ processors: { question: processor }, out, concurrency: 1 });
    await expect(
      runner.run({ runId: "r", kind: "question", items: items(10), signal: controller.signal }),
    ).rejects.toThrow(/abort/i);
    const { seen, processor: counting } = countingProcessor();
    const rest = createEmbeddedRunner({ processors: { question: counting }, out });
    const outcome = await rest.run({ runId: "r", kind: "question", items: items(10) });
    expect(seen.length).toBeLessThanOrEqual(6);
    expect(seen.length + outcome.progress.skipped).toBe(10);
    expect(outcome.results.every((result) => result.ok)).toBe(true);
  });

  it("names the known kinds for an unknown one", async () => {
    const runner = createEmbeddedRunner({
      processors: { question: countingProcessor().processor },
      out: join(folder, "o.jsonl"),
    });
    await expect(runner.run({ runId: "r", kind: "summary", items: [] })).rejects.toThrow(/question/);
  });
});
