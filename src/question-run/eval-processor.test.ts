import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { ExtractiveLLM } from "../extractive/extractive-llm.js";
import type { BatchTrust } from "./batch-trust.js";
import { createEvalQuestionProcessor } from "./eval-processor.js";
import type { EvalRunConfig } from "./eval-run-config.js";

let root: string;
const opened: string[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "ragsynth-eval-processor-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

function processor() {
  const trust: BatchTrust = { command: "worker", llm: null, allowLLM: [], embed: null, indexRoots: [root] };
  return createEvalQuestionProcessor({
    trust,
    modelFor: () => new ExtractiveLLM(),
    indexFor: async (dir) => {
      opened.push(dir);
      throw new Error("no index in this test");
    },
  });
}

const config = (overrides: Partial<EvalRunConfig>): EvalRunConfig => ({
  index: root,
  llm: null,
  embed: null,
  modes: ["compact"],
  topK: 4,
  retrieval: null,
  similarityCutoff: null,
  optimizer: null,
  contextWindow: null,
  numOutput: null,
  judge: null,
  prices: null,
  citations: false,
  ...overrides,
});

async function refusal(run: Promise<unknown>): Promise<Error> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(InvalidArgumentError.isInstance(error)).toBe(true);
  return error as Error;
}

describe("the eval-question processor (a worker's side of eval --redis; jobs are untrusted)", () => {
  const context = (settings: EvalRunConfig) => ({
    config: settings,
    signal: new AbortController().signal,
    attempt: 1,
  });

  it("refuses a judge the worker's operator did not allow, before any index is opened", async () => {
    const error = await refusal(
      processor()({ id: "q1", query: "Default mode?" }, context(config({ judge: "openai:gpt-4o" }))),
    );
    expect(error.message).toMatch(/config\.judge\.llm/);
    expect(error.message).toMatch(/--allow-llm/);
    expect(opened).toEqual([]);
  });

  it("refuses an index outside the worker's --index-root", async () => {
    const error = await refusal(
      processor()({ id: "q1", query: "Default mode?" }, context(config({ index: tmpdir() }))),
    );
    expect(error.message).toMatch(/config\.index.*lies outside/);
    expect(opened).toEqual([]);
  });

  it("refuses a question whose labels break the questions file's rules", async () => {
    const error = await processor()(
      { id: "q1", query: "Default mode?", relevant: 5 },
      context(config({})),
    ).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message).toMatch(/question "q1" has `relevant` 5/);
  });
});
