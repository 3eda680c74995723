import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { duplicatePrompts, waitUntil } from "../redis/batch-test-helpers.js";
import { copyExampleDocs, runCli, startCli, TEST_API_KEY } from "./run-cli.js";

let server: FakeOpenAIServer;
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;
let env: Record<string, string>;

async function lineCount(path: string): Promise<number> {
  try {
    if ((await stat(path)).size === 0) return 0;
    return (await readFile(path, "utf8")).split("\n").filter((line) => line.trim() !== "").length;
  } catch {
    return 0;
  }
}

describe("ragsynth batch, embedded backend (no Redis)", () => {
  beforeAll(async () => {
    server = await startFakeOpenAIServer({ latencyMs: 20, handler: ({ index }) => `Answer ${index}.` });
    corpus = await copyExampleDocs();
    env = { RAGSYNTH_LLM: `${server.url}#fake`, OPENAI_API_KEY: TEST_API_KEY };
    expect((await runCli(["index", corpus.docs], { env })).code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await corpus?.cleanup();
  });

  it("answers 500 questions exactly once across a SIGKILL and a rerun, paying again only for calls in flight", async () => {
    const questions = join(corpus.dir, "questions.jsonl");
    const lines = Array.from({ length: 500 }, (_, index) =>
      JSON.stringify({ id: `q${index}`, query: `Embedded question ${index}: what does compact mode do?` }),
    );
    await writeFile(questions, `${lines.join("\n")}\n`);
    const out = join(corpus.dir, "answers.jsonl");
    const args = [
      "batch",
      questions,
      "--index",
      join(corpus.docs, ".ragsynth"),
      "--out",
      out,
      "--concurrency",
      "4",
    ];

    const first = startCli(args, { env });
    await waitUntil(async () => (await lineCount(out)) >= 100, 120_000);
    first.child.kill("SIGKILL");
    expect((await first.done).signal).toBe("SIGKILL");
    // Taken once the process is gone: a request it sent in the last moment before the signal landed still counts as
    // in flight (taking the time before kill() raced with such a request).
    const killedAt = Date.now();
    const before = await lineCount(out);
    expect(before).toBeLessThan(500);

    const second = await runCli([...args, "--json"], { env });
    expect(second.code, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary).toMatchObject({ backend: "embedded", total: 500, failed: 0 });
    expect(summary.skipped).toBeGreaterThanOrEqual(100);
    expect(summary.done + summary.skipped).toBe(500);

    const results = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(results.map((result) => result.id)).toEqual(
      Array.from({ length: 500 }, (_, index) => `q${index}`),
    );
    expect(results.every((result) => result.ok && /^Answer \d+\.$/.test(result.value.answer))).toBe(true);

    const duplicates = duplicatePrompts(server.requests);
    expect(duplicates.length).toBeLessThanOrEqual(4);
    for (const first of duplicates) expect(first.startedAt).toBeLessThanOrEqual(killedAt);
    expect(server.requests.filter((request) => request.prompt !== undefined)).toHaveLength(
      500 + duplicates.length,
    );

    // A third run has nothing left to do and pays for nothing.
    const paid = server.requests.length;
    const third = await runCli([...args, "--json"], { env });
    expect(JSON.parse(third.stdout)).toMatchObject({ done: 0, skipped: 500 });
    expect(server.requests.length).toBe(paid);
  }, 240_000);
});
