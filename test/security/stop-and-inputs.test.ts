// Issue 25, rows 4 (SIGTERM), 6 (never destroy an input) and What to build 7 (batch input).
// On main: SIGTERM left a worker exiting 0 and a Redis-less batch hanging; `batch q.jsonl --out q.jsonl`
// replaced the questions, exit 0; `--call-cache q.jsonl` appended cache lines into them; a BOM failed line 1 as
// "not JSON"; an unknown mode became a retried item failure; a wrong --index failed every item with a library hint.
import { link, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, startCli, TEST_API_KEY, waitForOutput } from "../cli/run-cli.js";
import { freePort } from "../redis/redis-server.js";
import { testRedisUrl } from "../redis/redis-url.js";
import { writeQuestions } from "./security-helpers.js";

let server: FakeOpenAIServer;
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;
let env: Record<string, string>;
let index: string;

beforeAll(async () => {
  server = await startFakeOpenAIServer({ latencyMs: 200, handler: () => "An answer." });
  corpus = await copyExampleDocs();
  env = { RAGSYNTH_LLM: `${server.url}#fake`, OPENAI_API_KEY: TEST_API_KEY };
  index = join(corpus.docs, ".ragsynth");
  expect((await runCli(["index", corpus.docs], { env })).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await corpus?.cleanup();
});

const questionsOf = (count: number) =>
  Array.from({ length: count }, (_, id) => ({
    id: `q${id}`,
    query: `Question ${id}: what is compact mode?`,
  }));

describe("SIGTERM ends every command as SIGINT does, with 143", () => {
  it("an embedded batch in flight", async () => {
    const questions = await writeQuestions(corpus.dir, "term.jsonl", questionsOf(200));
    const out = join(corpus.dir, "term.out.jsonl");
    const run = startCli(["batch", questions, "--index", index, "--out", out, "--concurrency", "2"], { env });
    const requests = server.requests.length;
    const start = Date.now();
    while (server.requests.length === requests && Date.now() - start < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    run.child.kill("SIGTERM");
    const ended = await run.done;
    expect(ended.code, ended.stderr).toBe(143);
    expect(ended.stderr).toMatch(/interrupted/);
    // It stopped: far fewer than 200 answers were written.
    const written = (await readFile(out, "utf8")).split("\n").filter(Boolean).length;
    expect(written).toBeLessThan(200);
  });

  it.skipIf(!testRedisUrl())("a worker waiting for jobs", async () => {
    const worker = startCli(
      ["worker", "--redis", testRedisUrl() as string, "--queue", `term-${process.pid}`],
      { env },
    );
    await waitForOutput(worker.output, (output) => output.stderr.includes("taking jobs"), 60_000);
    worker.child.kill("SIGTERM");
    const ended = await worker.done;
    expect(ended.code, ended.stderr).toBe(143);
    expect(ended.stderr).toMatch(/finishing the jobs in hand/);
  });
});

describe("an output never lands on an input (exit 2, input untouched)", () => {
  it.each([
    ["--out is the questions file", (q: string) => ["--out", q]],
    [
      "--call-cache is the questions file",
      (q: string) => ["--out", join(corpus.dir, "x.jsonl"), "--call-cache", q],
    ],
    ["--out is a symlink to the questions file", (q: string) => ["--out", `${q}.link`]],
    ["--out is a hard link to the questions file", (q: string) => ["--out", `${q}.hard`]],
    ["--out is a file of the index", () => ["--out", join(index, "ragsynth-index.sqlite")]],
  ])("%s", async (_, outputs) => {
    const questions = await writeQuestions(
      corpus.dir,
      `keep-${Math.random().toString(36).slice(2)}.jsonl`,
      questionsOf(3),
    );
    await symlink(questions, `${questions}.link`);
    await link(questions, `${questions}.hard`);
    const before = await readFile(questions, "utf8");
    const indexBefore = await readFile(join(index, "ragsynth-index.sqlite"));
    const requests = server.requests.length;
    const result = await runCli(["batch", questions, "--index", index, ...outputs(questions)], { env });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/writing there would (destroy it|replace a document)/);
    expect(await readFile(questions, "utf8")).toBe(before);
    expect((await readFile(join(index, "ragsynth-index.sqlite"))).equals(indexBefore)).toBe(true);
    expect(server.requests.length).toBe(requests);
  });

  it("ask --report naming a document is refused, the document untouched", async () => {
    const document = join(corpus.docs, "security-note.md");
    await writeFile(document, "# A document\n\nCompact mode packs chunks.\n");
    const result = await runCli(["ask", corpus.docs, "-q", "What is compact mode?", "--report", document], {
      env,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/--report .* writing there would replace a document/);
    expect(await readFile(document, "utf8")).toBe("# A document\n\nCompact mode packs chunks.\n");
  });
});

describe("batch input", () => {
  it("strips a UTF-8 byte order mark", async () => {
    const path = join(corpus.dir, "bom.jsonl");
    await writeFile(path, `\uFEFF${JSON.stringify({ id: "q1", query: "What is compact mode?" })}\n`);
    const result = await runCli(
      ["batch", path, "--index", index, "--out", join(corpus.dir, "bom.out.jsonl"), "--json"],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ done: 1, failed: 0 });
  });

  it("names the line that is not UTF-8", async () => {
    const path = join(corpus.dir, "latin1.jsonl");
    const lines = [
      Buffer.from(`${JSON.stringify({ id: "q1", query: "fine" })}\n`),
      Buffer.from(`${JSON.stringify({ id: "q2", query: "fine" })}\n`),
      Buffer.from('{"id":"q3","query":"caf\xe9"}\n', "latin1"),
    ];
    await writeFile(path, Buffer.concat(lines));
    const result = await runCli(
      ["batch", path, "--index", index, "--out", join(corpus.dir, "latin1.out.jsonl")],
      { env },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Line 3: expected UTF-8 text/);
  });

  it("an unknown mode is refused naming the line, before any call (a queue job with one: invalid_argument, see batch-model-choice)", async () => {
    const path = await writeQuestions(corpus.dir, "mode.jsonl", [
      { id: "q1", query: "What is compact mode?" },
      { id: "q2", query: "What is compact mode?", mode: "telepathy" },
    ]);
    const requests = server.requests.length;
    const result = await runCli(
      ["batch", path, "--index", index, "--out", join(corpus.dir, "mode.out.jsonl"), "--json"],
      { env },
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: "batch_input" });
    expect(result.stderr).toMatch(/Line 2: .*item "q2"\.mode.*response modes/);
    expect(server.requests.length).toBe(requests);
  });

  it.each([
    ["embedded", [] as string[]],
    ["with --redis", ["--redis", testRedisUrl() ?? "redis://127.0.0.1:1"]],
  ])("a wrong --index is one error with the CLI's hint, before anything runs (%s)", async (_, extra) => {
    const path = await writeQuestions(corpus.dir, "index.jsonl", questionsOf(50));
    const requests = server.requests.length;
    const result = await runCli(
      ["batch", path, "--index", corpus.docs, "--out", join(corpus.dir, "i.out.jsonl"), ...extra],
      { env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/No index in .*ragsynth index <folder>/);
    expect(server.requests.length).toBe(requests);
  });
});

describe("an unreachable Redis for a batch", () => {
  it("is one error, exit 1, nothing written", async () => {
    const path = await writeQuestions(corpus.dir, "down.jsonl", questionsOf(2));
    const out = join(corpus.dir, "down.out.jsonl");
    const result = await runCli(
      ["batch", path, "--index", index, "--out", out, "--redis", `redis://127.0.0.1:${await freePort()}`],
      { env },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ragsynth: Cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ /);
    await expect(readFile(out, "utf8")).rejects.toThrow();
  });
});
