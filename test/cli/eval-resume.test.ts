import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, startCli, TEST_API_KEY } from "./run-cli.js";

// `ragsynth eval --out` killed with SIGKILL mid-run, then run again: no question finished before the kill is
// retrieved or answered again, and no call whose reply reached the call cache is paid again. Only calls in flight
// at the kill (at most --concurrency: a question's modes run one after another) can reach the server twice.

const TOPICS = [
  "What is the default response mode?",
  "What does the sentence optimizer keep?",
  "When is the token usage of a stream known?",
  "How much of the window is kept for the answer?",
  "How does refine walk the chunks?",
  "What does tree_summarize do with the chunks?",
];

interface Report {
  questions: Array<{
    id: string;
    answers: Array<{ mode: string; answer: string; usage: { calls: number } }>;
  }>;
  calls: { paid: number; replayed: number };
}

let server: FakeOpenAIServer;
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;

beforeAll(async () => {
  // Slow enough that the kill lands mid-run; the reply depends on the prompt only.
  server = await startFakeOpenAIServer({
    latencyMs: 120,
    handler: ({ prompt }) => `Answer from ${prompt.length} characters.`,
  });
  corpus = await copyExampleDocs();
});
afterAll(async () => {
  await server?.close();
  await corpus?.cleanup();
});

/** Whole JSON lines of a file (a line torn by the kill is not counted). */
const lineCount = async (path: string) =>
  (await readFile(path, "utf8").catch(() => "")).split("\n").filter((line) => {
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  }).length;

describe("ragsynth eval killed and run again", () => {
  it("repeats no finished question and no cached call (counted at the server)", async () => {
    const questions = join(corpus.dir, "resume.jsonl");
    const total = 16;
    const lines = Array.from({ length: total }, (_, index) =>
      JSON.stringify({
        id: `q${index}`,
        query: `${TOPICS[index % TOPICS.length]} (${index})`,
        answer_hint: "answer",
      }),
    );
    await writeFile(questions, `${lines.join("\n")}\n`);
    const out = join(corpus.dir, "resume-results.jsonl");
    const cache = join(corpus.dir, "resume-calls.jsonl");
    const env = { RAGSYNTH_LLM: `${server.url}#fake`, OPENAI_API_KEY: TEST_API_KEY };
    const args = [
      "eval",
      questions,
      corpus.docs,
      "--modes",
      "compact,refine",
      "--concurrency",
      "2",
      "--out",
      out,
      "--call-cache",
      cache,
      "--json",
    ];

    const first = startCli(args, { env });
    const deadline = Date.now() + 120_000;
    while ((await lineCount(out)) < 4) {
      if (Date.now() > deadline || first.child.exitCode !== null) throw new Error(first.output().stderr);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    first.child.kill("SIGKILL");
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");
    const finished = new Set(
      (await readFile(out, "utf8"))
        .split("\n")
        .filter((line) => line.trim() !== "")
        .flatMap((line) => {
          try {
            const parsed = JSON.parse(line) as { ok: boolean; id: string };
            return parsed.ok ? [parsed.id.replace(/@.*/, "")] : [];
          } catch {
            return []; // a line torn by the kill is a question to answer again
          }
        }),
    );
    expect(finished.size).toBeGreaterThanOrEqual(4);
    expect(finished.size).toBeLessThan(total);
    const requestsBefore = server.requests.length;
    const cachedBefore = await lineCount(cache);
    // At most one call per question in flight was lost to the kill.
    expect(requestsBefore - cachedBefore).toBeGreaterThanOrEqual(0);
    expect(requestsBefore - cachedBefore).toBeLessThanOrEqual(2);

    const second = await runCli(args, { env });
    expect(second.code, second.stderr).toBe(0);
    const report = JSON.parse(second.stdout) as Report;
    expect(report.questions.map((question) => question.id)).toEqual(
      Array.from({ length: total }, (_, index) => `q${index}`),
    );
    // The finished questions made no call at all, not even one replayed from the cache: not answered again.
    const callsOf = (ids: (id: string) => boolean) =>
      report.questions
        .filter((question) => ids(question.id))
        .flatMap((question) => question.answers)
        .reduce((sum, answer) => sum + answer.usage.calls, 0);
    const unfinishedCalls = callsOf((id) => !finished.has(id));
    expect(unfinishedCalls).toBeGreaterThan(0);
    expect(report.calls.paid + report.calls.replayed).toBe(unfinishedCalls);
    // Calls cached before the kill were replayed, never paid again: the second run paid only for the rest.
    expect(server.requests.length - requestsBefore).toBe(report.calls.paid);
    // Every prompt reached the server once, but for the calls in flight at the kill.
    const prompts = server.requests.flatMap((request) =>
      request.prompt === undefined ? [] : [request.prompt],
    );
    const repeated = prompts.length - new Set(prompts).size;
    expect(repeated).toBeLessThanOrEqual(requestsBefore - cachedBefore);
    // Every call the report counts reached the server (once, or twice when lost to the kill).
    expect(callsOf(() => true)).toBe(prompts.length - repeated);
  }, 240_000);
});
