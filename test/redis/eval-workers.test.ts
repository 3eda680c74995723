import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, type startCli, TEST_API_KEY } from "../cli/run-cli.js";
import { startWorkers } from "./batch-test-helpers.js";
import { testRedisUrl } from "./redis-url.js";

// `ragsynth eval --redis` puts each question on the queue as an `eval-question` job for `ragsynth worker`s. The
// workers score it with the same function as the in-process run, so the two reports must agree on everything
// but the clock: retrieval, answers, usage, failures, the per-mode table and the best mark.

const redisUrl = testRedisUrl() as string;
let server: FakeOpenAIServer;
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;
let env: Record<string, string>;
const children: Array<ReturnType<typeof startCli>> = [];

const TOPICS = [
  ["What is the default response mode?", "response-modes.md", "compact"],
  ["What does the sentence optimizer keep?", "optimizer.md", "sentences"],
  ["When is the token usage of a stream known?", "streaming.txt", "ended"],
  ["How much of the window is kept for the answer?", "token-budget.md", "numOutput"],
  ["How does refine walk the chunks?", "response-modes.md", "one by one"],
  ["Which database ships with it?", "database.md", "postgres"],
] as const;

/** Drops what depends on the clock (synthesis times), keeping everything scored. */
function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "ms" && key !== "wallMs")
      .map(([key, entry]) => [key, withoutTimes(entry)]),
  );
}

describe.skipIf(!redisUrl)(
  "eval over BullMQ with 2 worker processes (real Redis, fake OpenAI server)",
  () => {
    beforeAll(async () => {
      // The reply depends on the prompt only, so any worker gives any question the same answer.
      server = await startFakeOpenAIServer({
        handler: ({ prompt }) => {
          // The judge: a score for correctness; YES, NO or an unreadable reply for the others, by the prompt.
          if (prompt.includes("## Generated Answer")) return `${(prompt.length % 5) + 1}.0\nScored.`;
          if (prompt.includes("Information:") || prompt.includes("Query and Response:"))
            return ["YES", "NO", "maybe"][prompt.length % 3] as string;
          return `The answer, from ${prompt.length} characters [1]. ${prompt.slice(-80)}`;
        },
      });
      corpus = await copyExampleDocs();
      env = { RAGSYNTH_LLM: `${server.url}#fake`, OPENAI_API_KEY: TEST_API_KEY };
    }, 60_000);

    afterAll(async () => {
      for (const child of children) if (child.child.exitCode === null) child.child.kill("SIGKILL");
      await server?.close();
      await corpus?.cleanup();
    });

    it("gives the same report as the in-process run, each question answered once across the workers", async () => {
      const queue = `eval-${randomUUID()}`;
      const questions = join(corpus.dir, "eval-questions.jsonl");
      const lines = Array.from({ length: 24 }, (_, index) => {
        const [query, file, phrase] = TOPICS[index % TOPICS.length] as (typeof TOPICS)[number];
        return JSON.stringify({
          id: `q${index}`,
          query: `${query} (asked ${index})`,
          relevant: [file],
          answer_hint: phrase,
          ...(index % 2 === 0 ? { reference: `The answer is ${phrase}.` } : {}),
        });
      });
      await writeFile(questions, `${lines.join("\n")}\n`);
      // --citations: the workers check the answers' citations as the in-process run does.
      const common = [
        "eval",
        questions,
        corpus.docs,
        "--modes",
        "compact,refine,tree_summarize",
        "--citations",
        // Judged on the workers too (the judge allowed there with --allow-llm), through their call cache.
        "--judge",
        `${server.url}#judge`,
        "--json",
      ];

      const embedded = await runCli([...common, "--call-cache", join(corpus.dir, "eval-calls.jsonl")], {
        env,
      });
      expect(embedded.code, embedded.stderr).toBe(0);
      const paidEmbedded = server.requests.length;

      const workers = await startWorkers(2, {
        redisUrl: redisUrl as string,
        queue,
        indexRoot: corpus.dir,
        env,
        children,
        args: ["--concurrency", "2", "--allow-llm", `${server.url}#judge`, "--verbose"],
      });
      const distributed = await runCli([...common, "--redis", redisUrl, "--queue", queue], { env });
      expect(distributed.code, distributed.stderr).toBe(0);

      const local = JSON.parse(embedded.stdout) as Record<string, unknown>;
      const remote = JSON.parse(distributed.stdout) as Record<string, unknown>;
      // The in-process run counts its cache's calls; the workers' cache is theirs.
      const localCalls = local.calls as { paid: number; replayed: number };
      expect(localCalls.paid).toBe(paidEmbedded);
      for (const report of [local, remote]) {
        delete report.calls;
        delete report.callCache;
      }
      expect(withoutTimes(remote)).toEqual(withoutTimes(local));
      // Not a vacuous match: the questions were answered, some hit and some missed, in every mode.
      const modes = local.modes as Array<{
        mode: string;
        usage: { calls: number };
        phraseQuestions: number;
        citations: { citations: number };
      }>;
      expect(modes.map((mode) => mode.mode)).toEqual(["compact", "refine", "tree_summarize"]);
      for (const mode of modes) expect(mode.phraseQuestions).toBe(24);
      for (const mode of modes) expect(mode.citations.citations).toBeGreaterThan(0);
      const judged = (
        local.modes as Array<{ judges: Record<string, { judged: number; failures: number }> }>
      )[0]?.judges;
      expect(judged?.faithfulness?.judged).toBe(24);
      // Correctness judges every answer (without a reference, LlamaIndex's "(NO REFERENCE ANSWER SUPPLIED)").
      expect(judged?.correctness?.judged).toBe(24);
      expect(judged?.faithfulness?.failures).toBeGreaterThan(0);
      const retrieval = local.retrieval as { hitRate: number };
      expect(retrieval.hitRate).toBeGreaterThan(0);
      expect(retrieval.hitRate).toBeLessThan(1);

      // Every distinct call reached the server once in each run (compact and tree_summarize send the same citation
      // prompt when the pieces fit one call: the second is replayed from the cache, in both runs).
      const judgeCalls = (local.modes as Array<{ judges: Record<string, { usage: { calls: number } }> }>)
        .flatMap((mode) => Object.values(mode.judges))
        .reduce((sum, judge) => sum + judge.usage.calls, 0);
      const calls = modes.reduce((sum, mode) => sum + mode.usage.calls, 0) + judgeCalls;
      expect(calls).toBeGreaterThanOrEqual(72);
      expect(localCalls.paid + localCalls.replayed).toBe(calls);
      expect(server.requests.length - paidEmbedded).toBe(paidEmbedded);
      // Both workers took jobs (--verbose names each finished job).
      const stderr = workers.map((worker) => worker.output().stderr);
      for (const text of stderr) expect(text).toMatch(/ragsynth worker: eval-\w+-q\d+%40\w+ done/);
      expect(stderr.join("")).not.toContain(TEST_API_KEY);
      for (const worker of workers) worker.child.kill("SIGTERM");
      await Promise.all(workers.map((worker) => worker.done));

      // The same command again collects the finished jobs: no worker is running, and no call is made.
      const again = await runCli([...common, "--redis", redisUrl, "--queue", queue], { env });
      expect(again.code, again.stderr).toBe(0);
      const collected = JSON.parse(again.stdout) as Record<string, unknown>;
      delete collected.calls;
      delete collected.callCache;
      expect(withoutTimes(collected)).toEqual(withoutTimes(remote));
      expect(server.requests.length - paidEmbedded).toBe(paidEmbedded);
    }, 240_000);

    it("with --optimizer, the workers shorten the chunks as the in-process run does", async () => {
      const queue = `eval-${randomUUID()}`;
      const questions = join(corpus.dir, "optimizer-questions.jsonl");
      const lines = TOPICS.map(([query, file, phrase], index) =>
        JSON.stringify({ id: `o${index}`, query, relevant: [file], answer_hint: phrase }),
      );
      await writeFile(questions, `${lines.join("\n")}\n`);
      // The offline embedder weights a query by the index's own documents; both runs must optimize with that one.
      const common = [
        "eval",
        questions,
        corpus.docs,
        "--modes",
        "compact",
        "--optimizer",
        "percentile=0.5",
        "--json",
      ];
      const embedded = await runCli(common, { env });
      expect(embedded.code, embedded.stderr).toBe(0);
      const workers = await startWorkers(1, {
        redisUrl: redisUrl as string,
        queue,
        indexRoot: corpus.dir,
        env,
        children,
      });
      const distributed = await runCli([...common, "--redis", redisUrl, "--queue", queue], { env });
      expect(distributed.code, distributed.stderr).toBe(0);
      for (const worker of workers) worker.child.kill("SIGTERM");
      await Promise.all(workers.map((worker) => worker.done));
      const local = JSON.parse(embedded.stdout) as Record<string, unknown>;
      const remote = JSON.parse(distributed.stdout) as Record<string, unknown>;
      for (const report of [local, remote]) {
        delete report.calls;
        delete report.callCache;
      }
      expect(withoutTimes(remote)).toEqual(withoutTimes(local));
      // Not a vacuous match: the questions were answered through the model.
      const [compact] = local.modes as Array<{ usage: { calls: number }; phraseQuestions: number }>;
      expect(compact?.phraseQuestions).toBe(TOPICS.length);
      expect(compact?.usage.calls).toBeGreaterThan(0);
    }, 120_000);
  },
);
