// Figure: batch throughput with 1, 2 and 4 worker processes (BullMQ on a local redis-server) against the
// fake OpenAI server with 200 ms latency and one global request limit. Each worker runs 2 calls at once,
// so one worker tops out near 2 / 0.2 s = 10 requests/s; the limit is 12/s: throughput should grow until
// the limit, then hold at it. Not part of --quick (it starts processes and waits on a slow model).
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST_TESTING, ROOT_DIR } from "../lib/libs.mjs";
import { fmt } from "../lib/report.mjs";

const LATENCY_MS = 200;
const LIMIT_PER_SECOND = 12;
const WORKER_CONCURRENCY = 2;
const QUESTIONS = 120;
const BIN = join(ROOT_DIR, "dist", "cli", "bin.js");

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function hasRedis() {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function startRedis(dir) {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "yes",
      "--maxmemory-policy",
      "noeviction",
    ],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("Ready to accept connections")) resolve();
    });
    child.once("exit", () => reject(new Error(`redis-server exited: ${out}`)));
  });
  return { url: `redis://127.0.0.1:${port}`, child };
}

function startWorker(env, redisUrl, queue, indexRoot) {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "worker",
      "--redis",
      redisUrl,
      "--queue",
      queue,
      "--concurrency",
      String(WORKER_CONCURRENCY),
      // A worker opens indexes only under its roots (the current folder by default); the bench's is a temp folder.
      "--index-root",
      indexRoot,
    ],
    {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const ready = new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (chunk) => {
      err += chunk;
      if (err.includes("taking jobs")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
  return { child, ready };
}

export async function batchFigure({ quick }) {
  const title = `batch: questions/s with 1, 2, 4 worker processes, model latency ${LATENCY_MS} ms, global limit ${LIMIT_PER_SECOND}/s`;
  if (quick)
    return {
      id: "batch",
      title,
      notes: ["Skipped in --quick: it starts worker processes and waits on a 200 ms model."],
    };
  if (!hasRedis())
    return {
      id: "batch",
      title,
      notes: ["Skipped: redis-server is not installed (apt-get install redis-server)."],
    };
  const { createBullMQRunner } = await import(join(ROOT_DIR, "dist", "batch", "index.js"));
  const { startFakeOpenAIServer } = await import(DIST_TESTING);
  const dir = await mkdtemp(join(tmpdir(), "ragsynth-bench-batch-"));
  const redis = await startRedis(dir);
  const server = await startFakeOpenAIServer({
    latencyMs: LATENCY_MS,
    handler: ({ index }) => `Answer ${index}.`,
  });
  const env = { ...process.env, RAGSYNTH_LLM: `${server.url}#fake`, OPENAI_API_KEY: "sk-bench-not-a-key" };
  const children = [];
  try {
    const docs = join(dir, "docs");
    execFileSync("cp", ["-r", join(ROOT_DIR, "examples", "docs"), docs]);
    execFileSync(process.execPath, [BIN, "index", docs], { env, stdio: "ignore" });
    const config = {
      index: join(docs, ".ragsynth"),
      llm: env.RAGSYNTH_LLM,
      embed: null,
      mode: "compact",
      topK: 4,
      contextWindow: null,
      numOutput: null,
      concurrency: 4,
    };
    const rows = [];
    const data = [];
    for (const workers of [1, 2, 4]) {
      const queue = `bench-${workers}`;
      const started = Array.from({ length: workers }, () => startWorker(env, redis.url, queue, dir));
      children.push(...started.map((worker) => worker.child));
      await Promise.all(started.map((worker) => worker.ready));
      // Warm-up: each worker loads the index and tokenizer on its first job; not counted.
      const warm = Array.from({ length: workers * 4 }, (_, index) => ({
        id: `w${index}`,
        query: `Warm-up ${workers}-${index}: what is the default response mode?`,
      }));
      const runner = createBullMQRunner({
        redisUrl: redis.url,
        queueName: queue,
        requestsPerMinute: LIMIT_PER_SECOND * 60,
        pollMs: 200,
      });
      await runner.run({ runId: "warm", kind: "question", config, items: warm });
      const items = Array.from({ length: QUESTIONS }, (_, index) => ({
        id: `q${index}`,
        query: `Question ${workers}-${index}: what is the default response mode?`,
      }));
      const before = server.requests.length;
      const start = performance.now();
      const outcome = await runner.run({ runId: "measure", kind: "question", config, items });
      const seconds = (performance.now() - start) / 1000;
      const calls = server.requests.slice(before).filter((request) => request.prompt !== undefined);
      const times = calls.map((request) => request.startedAt).sort((a, b) => a - b);
      let busiest = 0;
      for (let i = 0, j = 0; i < times.length; i += 1) {
        while (j < times.length && times[j] < times[i] + 1000) j += 1;
        busiest = Math.max(busiest, j - i);
      }
      const perSecond = outcome.progress.done / seconds;
      rows.push([
        String(workers),
        fmt(outcome.progress.done),
        fmt(outcome.progress.failed),
        fmt(seconds, 1),
        fmt(perSecond, 1),
        fmt(Math.min(workers * WORKER_CONCURRENCY * (1000 / LATENCY_MS), LIMIT_PER_SECOND), 0),
        String(busiest),
      ]);
      data.push({
        workers,
        answered: outcome.progress.done,
        failed: outcome.progress.failed,
        seconds,
        perSecond,
        busiestSecond: busiest,
      });
      for (const worker of started) worker.child.kill("SIGTERM");
    }
    return {
      id: "batch",
      title,
      headers: ["workers", "answered", "failed", "s", "questions/s", "ceiling/s", "most requests in any 1 s"],
      rows,
      json: data,
      notes: [
        `${QUESTIONS} questions per row, compact mode over examples/docs, each one model call; workers from dist/cli/bin.js, ${WORKER_CONCURRENCY} calls at once each.`,
        "ceiling = min(workers × concurrency ÷ latency, limit). The limit is BullMQ's global rate limit on the call queue, shared by every worker.",
      ],
      targets: [],
    };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await server.close();
    redis.child.kill("SIGTERM");
    await new Promise((resolve) => redis.child.once("exit", resolve));
    await rm(dir, { recursive: true, force: true });
  }
}
