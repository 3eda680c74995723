// Issue 25, rows 3 and 5 (What to build 3): scripted failures and a model that echoes the key, then every channel
// grepped for the API key and the Redis password: stdout, stderr, --json, --out, the call cache, Redis values, the
// trace page. On main: `batch --status` with a failing AUTH printed `args: ['3','AUTH',…,'<password>']` forever,
// and --out, <out>.calls.jsonl and ragsynth:call:* held an echoed key verbatim.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliResult,
  copyExampleDocs,
  runCli,
  startCli,
  TEST_API_KEY,
  waitForOutput,
} from "../cli/run-cli.js";
import {
  freePort,
  redisServerBinary,
  startRedisServer,
  type TestRedisServer,
} from "../redis/redis-server.js";
import { dumpRedis, hits, TEST_REDIS_PASSWORD, writeQuestions } from "./security-helpers.js";

const ECHO = `Sure. The key you gave me is ${TEST_API_KEY}; keep it safe.`;
let echo: FakeOpenAIServer;
let failing500: FakeOpenAIServer;
let failing401: FakeOpenAIServer;
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;
let index: string;
const channels: Array<[string, string]> = [];

function record(name: string, result: CliResult): CliResult {
  channels.push([`${name} stdout`, result.stdout], [`${name} stderr`, result.stderr]);
  return result;
}

async function recordFile(name: string, path: string): Promise<string> {
  const text = await readFile(path, "utf8");
  channels.push([name, text]);
  return text;
}

function expectClean(name: string, text: string) {
  expect(hits(text, TEST_API_KEY), `${name}: ${text.slice(0, 2000)}`).toBe(0);
  expect(hits(text, TEST_REDIS_PASSWORD), `${name}: ${text.slice(0, 2000)}`).toBe(0);
}

const envFor = (server: FakeOpenAIServer) => ({
  RAGSYNTH_LLM: `${server.url}#fake`,
  OPENAI_API_KEY: TEST_API_KEY,
});

beforeAll(async () => {
  echo = await startFakeOpenAIServer({ handler: () => ECHO });
  failing500 = await startFakeOpenAIServer({
    faults: [{ kind: "status", status: 500, message: `Internal error while using api key ${TEST_API_KEY}` }],
  });
  failing401 = await startFakeOpenAIServer({
    faults: [{ kind: "status", status: 401, message: `Incorrect API key provided: ${TEST_API_KEY}` }],
  });
  corpus = await copyExampleDocs();
  index = join(corpus.docs, ".ragsynth");
  expect((await runCli(["index", corpus.docs], { env: envFor(echo) })).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await Promise.all([echo?.close(), failing500?.close(), failing401?.close()]);
  await corpus?.cleanup();
});

describe("no secret in any channel: model servers", () => {
  it("a model echoing the key: batch --out, --json, the call cache and the terminal hold [REDACTED]", async () => {
    const questions = await writeQuestions(corpus.dir, "echo.jsonl", [
      { id: "q1", query: "What is the default response mode?" },
      { id: "q2", query: "What does refine do?" },
    ]);
    const out = join(corpus.dir, "echo.out.jsonl");
    const result = record(
      "batch echo",
      await runCli(["batch", questions, "--index", index, "--out", out, "--json"], { env: envFor(echo) }),
    );
    expect(result.code, result.stderr).toBe(0);
    const answers = await recordFile("--out", out);
    expect(answers).toContain("[REDACTED]");
    await recordFile("calls.jsonl", `${out}.calls.jsonl`);
    // A rerun replays the (scrubbed) cache: still nothing.
    const again = record(
      "batch echo rerun",
      await runCli(
        [
          "batch",
          questions,
          "--index",
          index,
          "--out",
          join(corpus.dir, "echo2.jsonl"),
          "--call-cache",
          `${out}.calls.jsonl`,
          "--json",
        ],
        { env: envFor(echo) },
      ),
    );
    expect(again.code, again.stderr).toBe(0);
    await recordFile("--out (replayed)", join(corpus.dir, "echo2.jsonl"));
  });

  it.each([
    ["a 500 whose body echoes the key", () => failing500],
    ["a 401 whose body echoes the key", () => failing401],
  ])(
    "%s: the failed items in --out and --json say what happened, without the key",
    async (name, server) => {
      const questions = await writeQuestions(corpus.dir, "fail.jsonl", [
        { id: "q1", query: "What is compact mode?" },
      ]);
      const out = join(corpus.dir, `fail-${server().url.split(":").at(-1)?.replace(/\W/g, "")}.jsonl`);
      const result = record(
        name,
        await runCli(["batch", questions, "--index", index, "--out", out, "--attempts", "1", "--json"], {
          env: envFor(server()),
        }),
      );
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout).failures).toHaveLength(1);
      await recordFile(`${name} --out`, out);
    },
    120_000,
  );

  it("ask with a model echoing the key: the answer, --json and the trace page (--report)", async () => {
    const report = join(corpus.dir, "trace.html");
    const result = record(
      "ask echo",
      await runCli(["ask", corpus.docs, "-q", "What is compact mode?", "--report", report], {
        env: envFor(echo),
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("[REDACTED]");
    await recordFile("trace page", report);
    record(
      "ask echo --json",
      await runCli(["ask", corpus.docs, "-q", "What is compact mode?", "--json"], { env: envFor(echo) }),
    );
  });
});

const binary = redisServerBinary();

describe.skipIf(!binary)("no secret in any channel: Redis with a password (real redis-server)", () => {
  let redis: TestRedisServer;
  let wrongUrl: string;
  let unreachableUrl: string;

  beforeAll(async () => {
    redis = await startRedisServer({ password: TEST_REDIS_PASSWORD });
    wrongUrl = `redis://default:${TEST_REDIS_PASSWORD}-wrong@127.0.0.1:${redis.port}`;
    unreachableUrl = `redis://default:${TEST_REDIS_PASSWORD}@127.0.0.1:${await freePort()}`;
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it.each([
    [
      "batch --redis",
      (url: string, questions: string) => [
        "batch",
        questions,
        "--index",
        index,
        "--out",
        join(corpus.dir, "r.jsonl"),
        "--redis",
        url,
      ],
    ],
    [
      "batch --redis --json",
      (url: string, questions: string) => [
        "batch",
        questions,
        "--index",
        index,
        "--out",
        join(corpus.dir, "r.jsonl"),
        "--redis",
        url,
        "--json",
      ],
    ],
    ["batch --status", (url: string) => ["batch", "--status", "--redis", url]],
    ["batch --status --json", (url: string) => ["batch", "--status", "--redis", url, "--json"]],
    ["worker", (url: string) => ["worker", "--redis", url]],
  ])(
    "%s: a wrong password and an unreachable Redis are one line naming the URL, password hidden, exit 1",
    async (name, args) => {
      const questions = await writeQuestions(corpus.dir, "redis-q.jsonl", [
        { id: "q1", query: "What is compact mode?" },
      ]);
      for (const [what, url] of [
        ["wrong password", wrongUrl],
        ["unreachable", unreachableUrl],
      ] as const) {
        // A run that hangs fails the test at its timeout: within 10 s is the promise.
        const result = record(`${name} ${what}`, await runCli(args(url, questions), { env: envFor(echo) }));
        expect(result.code, result.stderr).toBe(1);
        const lines = result.stderr.trim().split("\n");
        expect(lines, result.stderr).toHaveLength(1);
        expect(lines[0]).toMatch(
          what === "wrong password" ? /refused the credentials/ : /Cannot reach Redis/,
        );
        expect(lines[0]).toContain(`redis://default:[REDACTED]@127.0.0.1:`);
        if (name.endsWith("--json")) expect(JSON.parse(result.stdout).error.code).toBe("redis_unavailable");
      }
    },
    60_000,
  );

  it("a batch through a worker, with a model echoing the key: --out, stdout, stderr and every Redis value are clean", async () => {
    const worker = startCli(["worker", "--redis", redis.url, "--index-root", corpus.dir, "--verbose"], {
      env: envFor(echo),
    });
    try {
      await waitForOutput(worker.output, (output) => output.stderr.includes("taking jobs"), 60_000);
      const questions = await writeQuestions(corpus.dir, "redis-echo.jsonl", [
        { id: "q1", query: "What is the default response mode?" },
        { id: "q2", query: "What does refine do?" },
      ]);
      const out = join(corpus.dir, "redis-echo.out.jsonl");
      const result = record(
        "batch --redis echo",
        await runCli(["batch", questions, "--index", index, "--out", out, "--redis", redis.url, "--json"], {
          env: envFor(echo),
        }),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(await recordFile("--out (redis)", out)).toContain("[REDACTED]");
      const status = record(
        "batch --status ok",
        await runCli(["batch", "--status", "--redis", redis.url, "--out", out], { env: envFor(echo) }),
      );
      expect(status.stdout).toMatch(/2 done/);
      const stored = await dumpRedis(redis.url);
      expect(stored).toContain("ragsynth:call:");
      channels.push(["Redis values", stored]);
    } finally {
      worker.child.kill("SIGTERM");
      const ended = await worker.done;
      channels.push(["worker stdout", ended.stdout], ["worker stderr", ended.stderr]);
      expect(ended.stderr).not.toMatch(/MaxListenersExceededWarning/);
    }
  }, 120_000);
});

describe("the matrix", () => {
  it("found 0 hits of the API key and the Redis password in every channel recorded above", () => {
    // Without redis-server the Redis channels were not recorded (the suite's setup says the Redis tests are
    // SKIPPED, and how to install it): the others still are, and must all be clean. CI installs redis-server.
    expect(channels.length).toBeGreaterThan(binary ? 20 : 15);
    for (const [name, text] of channels) expectClean(name, text);
  });
});
