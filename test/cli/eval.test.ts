import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, TEST_API_KEY } from "./run-cli.js";

interface EvalJSON {
  retrieval: { questions: number; k: number; hitRate: number; mrr: number };
  modes: Array<{
    mode: string;
    phraseQuestions: number;
    phraseShare: number;
    usage: { calls: number };
    judges?: Record<string, { judged: number; passRate: number; failures: number }>;
  }>;
  best: { mode: string; costUnit: string } | undefined;
  questions: Array<{
    id: string;
    retrieval?: { firstRelevantRank: number | null };
    sources: Array<{ filePath: string }>;
  }>;
  calls: { paid: number; replayed: number } | undefined;
}

const QUESTIONS = [
  {
    id: "q1",
    query: "What is the default response mode?",
    relevant: ["response-modes.md"],
    answer_hint: "compact",
  },
  {
    id: "q2",
    query: "What does the sentence optimizer keep?",
    relevant: ["optimizer.md"],
    answer_hint: "sentences",
  },
  { id: "q3", query: "Which file is not in the corpus?", relevant: ["missing.md"], reference: "none" },
];

let dir: string;
let docs: string;
let cleanup: () => Promise<void>;
let questions: string;
let server: FakeOpenAIServer | undefined;

beforeAll(async () => {
  ({ dir, docs, cleanup } = await copyExampleDocs());
  questions = join(dir, "questions.jsonl");
  await writeFile(questions, `${QUESTIONS.map((question) => JSON.stringify(question)).join("\n")}\n`);
});
afterAll(() => cleanup());
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("ragsynth eval", () => {
  it("scores retrieval and each mode offline, every mode answering from the same chunks", async () => {
    const { code, stdout, stderr } = await runCli([
      "eval",
      questions,
      docs,
      "--modes",
      "compact,refine",
      "--json",
    ]);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as EvalJSON;
    expect(report.modes.map((mode) => mode.mode)).toEqual(["compact", "refine"]);
    expect(report.retrieval).toMatchObject({ questions: 3, k: 4 });
    const [q1, , q3] = report.questions;
    expect(q1?.retrieval?.firstRelevantRank).toBeGreaterThan(0);
    expect(q1?.sources[(q1.retrieval?.firstRelevantRank ?? 1) - 1]?.filePath).toMatch(/response-modes\.md$/);
    expect(q3?.retrieval?.firstRelevantRank).toBeNull();
    // Two of three questions can hit; q3 names a file that does not exist.
    expect(report.retrieval.hitRate).toBeLessThanOrEqual(2 / 3);
    for (const mode of report.modes) expect(mode.phraseQuestions).toBe(2);
    expect(report.calls).toBeUndefined();
  });

  it("prints a table per mode with the best marked, and says why tokens stand in for dollars", async () => {
    const { code, stdout } = await runCli(["eval", questions, docs, "--modes", "compact,simple_summarize"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Retrieval \(3 questions with `relevant`, by file\): hit@4 /);
    expect(stdout).toMatch(/^mode\s+holds phrase\s+token F1\s+answer tokens/m);
    expect(stdout.match(/★ best$/gm)).toHaveLength(1);
    expect(stdout).toMatch(/tokens stand in for dollars/);
  });

  it("pays on a rerun with one more mode only for that mode (counted at the server)", async () => {
    server = await startFakeOpenAIServer({ handler: ({ index }) => `Compact answer ${index}.` });
    const env = { RAGSYNTH_LLM: `${server.url}#fake`, OPENAI_API_KEY: TEST_API_KEY };
    const cache = join(dir, "calls.jsonl");
    const common = ["eval", questions, docs, "--call-cache", cache, "--context-window", "4096", "--json"];
    const first = await runCli([...common, "--modes", "compact"], { env });
    expect(first.code, first.stderr).toBe(0);
    const firstReport = JSON.parse(first.stdout) as EvalJSON;
    const compactCalls = firstReport.modes[0]?.usage.calls ?? 0;
    expect(compactCalls).toBeGreaterThanOrEqual(3);
    expect(server.requests).toHaveLength(compactCalls);
    expect(firstReport.calls).toEqual({ paid: compactCalls, replayed: 0 });

    const second = await runCli([...common, "--modes", "compact,tree_summarize"], { env });
    expect(second.code, second.stderr).toBe(0);
    const secondReport = JSON.parse(second.stdout) as EvalJSON;
    const treeCalls = secondReport.modes[1]?.usage.calls ?? 0;
    expect(treeCalls).toBeGreaterThanOrEqual(3);
    // Only tree_summarize reached the server; compact was replayed with its usage.
    expect(server.requests).toHaveLength(compactCalls + treeCalls);
    expect(secondReport.calls).toEqual({ paid: treeCalls, replayed: compactCalls });
    expect(secondReport.modes[0]?.usage.calls).toBe(compactCalls);
    expect(`${first.stdout}${first.stderr}${second.stdout}${second.stderr}`).not.toContain(TEST_API_KEY);
  });

  it("runs a judge through the cache too, counting unreadable verdicts as failures", async () => {
    server = await startFakeOpenAIServer({
      handler: ({ prompt }) => (prompt.includes("## Generated Answer") ? "excellent!" : "YES"),
    });
    const env = { OPENAI_API_KEY: TEST_API_KEY };
    const cache = join(dir, "judge-calls.jsonl");
    const args = [
      "eval",
      questions,
      docs,
      "--modes",
      "compact",
      "--judge",
      `${server.url}#judge`,
      "--call-cache",
      cache,
      "--json",
    ];
    const first = await runCli(args, { env });
    expect(first.code, first.stderr).toBe(0);
    const judges = (JSON.parse(first.stdout) as EvalJSON).modes[0]?.judges;
    expect(judges?.faithfulness).toMatchObject({ judged: 3, passRate: 1, failures: 0 });
    expect(judges?.correctness).toMatchObject({ judged: 3, passRate: 0, failures: 3 });
    const paid = server.requests.length;
    const again = await runCli(args, { env });
    expect(again.code).toBe(0);
    expect(server.requests).toHaveLength(paid);
  });

  it("eval generate writes questions from sampled chunks that eval then scores by chunk id", async () => {
    server = await startFakeOpenAIServer({
      handler: ({ prompt }) =>
        prompt.includes("Teacher/ Professor")
          ? `1. ${prompt.split("\n")[3]?.split(/\s+/).slice(0, 8).join(" ")}?`
          : "An answer.",
    });
    const env = { RAGSYNTH_LLM: `${server.url}#writer`, OPENAI_API_KEY: TEST_API_KEY };
    const generated = await runCli(["eval", "generate", docs, "-n", "3"], { env });
    expect(generated.code, generated.stderr).toBe(0);
    const lines = generated.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; relevant: string[]; reference: string });
    expect(lines.map((line) => line.id)).toEqual(["q1", "q2", "q3"]);
    for (const line of lines) {
      expect(line.relevant).toHaveLength(1);
      expect(line.reference).toBe("An answer.");
    }
    const file = join(dir, "generated.jsonl");
    await writeFile(file, generated.stdout);
    // The question is the chunk's own first words, so BM25 finds that chunk: scored by chunk id.
    const scored = await runCli(["eval", file, docs, "--modes", "compact", "--json"], { env });
    expect(scored.code, scored.stderr).toBe(0);
    expect((JSON.parse(scored.stdout) as EvalJSON).retrieval.questions).toBe(3);
    expect((JSON.parse(scored.stdout) as EvalJSON).retrieval.hitRate).toBeGreaterThan(0);
    const offline = await runCli(["eval", "generate", docs]);
    expect(offline.code).toBe(2);
    expect(offline.stderr).toMatch(/needs a model that writes/);
  });

  it("--out keeps each question's result: a rerun answers only the questions the file lacks", async () => {
    server = await startFakeOpenAIServer({ handler: () => "Compact." });
    const env = { RAGSYNTH_LLM: `${server.url}#fake`, OPENAI_API_KEY: TEST_API_KEY };
    const out = join(dir, "results.jsonl");
    const two = join(dir, "two.jsonl");
    await writeFile(
      two,
      `${QUESTIONS.slice(0, 2)
        .map((question) => JSON.stringify(question))
        .join("\n")}\n`,
    );
    // No call cache: only the results file can spare the rerun its calls.
    const common = [
      docs,
      "--modes",
      "compact",
      "--out",
      out,
      "--call-cache",
      join(dir, "out-calls.jsonl"),
      "--json",
    ];
    const first = await runCli(["eval", two, ...common], { env });
    expect(first.code, first.stderr).toBe(0);
    const paidFirst = server.requests.length;
    await rm(join(dir, "out-calls.jsonl"));
    const second = await runCli(["eval", questions, ...common], { env });
    expect(second.code, second.stderr).toBe(0);
    const report = JSON.parse(second.stdout) as EvalJSON;
    expect(report.questions.map((question) => question.id)).toEqual(["q1", "q2", "q3"]);
    // Only q3 was answered: its calls are the only new requests.
    const q3Calls = (
      JSON.parse(second.stdout) as { questions: Array<{ answers: Array<{ usage: { calls: number } }> }> }
    ).questions[2]?.answers[0]?.usage.calls;
    expect(q3Calls).toBeGreaterThan(0);
    expect(paidFirst).toBeGreaterThan(0);
    expect(server.requests.length - paidFirst).toBe(q3Calls);
    expect(report.calls).toEqual({ paid: q3Calls, replayed: 0 });
  });

  it("--citations: offline, every compact answer cites its quotes, counted per mode", async () => {
    const { code, stdout, stderr } = await runCli([
      "eval",
      questions,
      docs,
      "--modes",
      "compact,generation",
      "--citations",
      "--json",
    ]);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as {
      modes: Array<{ citations?: { answers: number; citing: number; precision: number; invalid: number } }>;
    };
    const compact = report.modes[0]?.citations;
    expect(compact).toMatchObject({ answers: 3, citing: 3, invalid: 0 });
    // q1 and q2 retrieve their file: some citations come from it.
    expect(compact?.precision).toBeGreaterThan(0);
    expect(report.modes[1]?.citations).toBeUndefined();
    const table = await runCli(["eval", questions, docs, "--modes", "compact", "--citations"]);
    expect(table.stdout).toMatch(
      /^mode\s+holds phrase\s+token F1\s+answer tokens\s+citations\s+cited from relevant\s+unsupported/m,
    );
  });

  it("refuses --out and --call-cache with --redis, saying why", async () => {
    const refused = await runCli([
      "eval",
      questions,
      docs,
      "--redis",
      "redis://127.0.0.1:1",
      "--out",
      "r.jsonl",
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--out is for the in-process run; with --redis the queue keeps/);
  });

  it("refuses a --report that would land on the questions file or a document, before reading either", async () => {
    for (const target of [questions, join(docs, "response-modes.md")]) {
      const refused = await runCli(["eval", questions, docs, "--report", target]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--report .* (is the questions file|is a file inside the documents)/);
    }
  });

  it("names the line of a bad question and rejects a missing document path", async () => {
    const bad = join(dir, "bad.jsonl");
    await writeFile(bad, '{"id":"q1","query":"ok"}\n{"id":"q2","query":"x","relevant":5}\n');
    const parsed = await runCli(["eval", bad, docs]);
    expect(parsed.code).toBe(1);
    expect(parsed.stderr).toMatch(/Line 2: question "q2" has `relevant` 5/);
    const usage = await runCli(["eval", questions]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/eval needs at least one file or folder after the questions file/);
  });
});
