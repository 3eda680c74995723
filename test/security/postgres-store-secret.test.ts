// Issue 28: the PostgreSQL store's URL holds a password. It is never printed: not in the index summary, not in
// --json, not in an error (a server that cannot be reached, a wrong schema name), whether given as --store or as
// RAGSYNTH_STORE. And the store is the operator's choice: a batch questions line cannot name one, and batch/worker
// refuse a --store that is not a URL (a folder goes through --index / --index-root, under their checks).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, startCli, waitForOutput } from "../cli/run-cli.js";
import { dropSchemas, freshSchemaUrl, testPostgresUrl } from "../postgres/postgres-test-url.js";
import { waitUntil } from "../redis/batch-test-helpers.js";
import { freePort } from "../redis/redis-server.js";
import { testRedisUrl } from "../redis/redis-url.js";
import { hits, writeQuestions } from "./security-helpers.js";

const PASSWORD = "pg-PW-4b8e1f0c2d";
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;
const schemas: string[] = [];

/** A new schema's URL on the test server (dropped after the tests). */
function schemaUrl(label: string): string {
  const made = freshSchemaUrl(testPostgresUrl() as string, label);
  schemas.push(made.schema);
  return made.url;
}

beforeAll(async () => {
  corpus = await copyExampleDocs();
});
afterAll(async () => {
  await corpus?.cleanup();
  const base = testPostgresUrl();
  if (base) await dropSchemas(base, schemas);
});

/** `url` with the test password as its user's password. */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.href;
}

describe("the PostgreSQL store's password is never printed", () => {
  it("a server that cannot be reached: one index_load error naming the redacted URL", async () => {
    const port = await freePort();
    const url = `postgres://ragsynth:${PASSWORD}@127.0.0.1:${port}/postgres`;
    for (const args of [
      ["index", corpus.docs, "--store", url],
      ["ask", corpus.docs, "--store", url, "--query", "What is compact mode?"],
      ["index", corpus.docs, "--json"],
    ]) {
      const result = await runCli(args, args.includes("--store") ? {} : { env: { RAGSYNTH_STORE: url } });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(`postgres://ragsynth:[REDACTED]@127.0.0.1:${port}/postgres`);
      expect(result.stderr).toMatch(/ECONNREFUSED/);
      expect(hits(result.stdout + result.stderr, PASSWORD), result.stderr).toBe(0);
    }
  });

  it("a schema name that is not an identifier is refused with the URL redacted", async () => {
    const url = `postgres://ragsynth:${PASSWORD}@127.0.0.1:5432/postgres?schema=Robert');DROP`;
    const result = await runCli(["index", corpus.docs, "--store", url]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/schema/);
    expect(hits(result.stdout + result.stderr, PASSWORD), result.stderr).toBe(0);
  });

  it.skipIf(!testPostgresUrl())(
    "index and ask on a real server: the summary and --json show [REDACTED]",
    async () => {
      const store = withPassword(schemaUrl("secret"));
      const indexed = await runCli(["index", corpus.docs, "--store", store, "--json"]);
      expect(indexed.code, indexed.stderr).toBe(0);
      expect(JSON.parse(indexed.stdout).cacheDir).toMatch(
        /^postgres:\/\/ragsynth:\[REDACTED\]@127\.0\.0\.1:/,
      );
      const summary = await runCli(["index", corpus.docs, "--store", store]);
      expect(summary.stdout + summary.stderr).toMatch(/cache postgres:\/\/ragsynth:\[REDACTED\]@/);
      const asked = await runCli(["ask", corpus.docs, "--query", "What is compact mode?", "--json"], {
        env: { RAGSYNTH_STORE: store },
      });
      expect(asked.code, asked.stderr).toBe(0);
      for (const result of [indexed, summary, asked])
        expect(hits(result.stdout + result.stderr, PASSWORD), result.stdout).toBe(0);
    },
  );

  it.skipIf(!testPostgresUrl())(
    "a URL with a user name and no password hides nothing: the user and the schema are printed as given",
    async () => {
      const store = schemaUrl("plainuser");
      const user = new URL(store).username;
      expect(user.length).toBeGreaterThan(0);
      const indexed = await runCli(["index", corpus.docs, "--store", store]);
      expect(indexed.code, indexed.stderr).toBe(0);
      const printed = indexed.stdout + indexed.stderr;
      expect(printed).toContain(`postgres://${user}@127.0.0.1:`);
      expect(printed).toContain(`?schema=${schemas.at(-1)}`);
      expect(printed).not.toContain("[REDACTED]");
    },
  );
});

describe("only the operator chooses the store", () => {
  it("batch and worker refuse a --store that is not a PostgreSQL URL, and --store with --redis", async () => {
    const questions = await writeQuestions(corpus.dir, "q.jsonl", [
      { id: "q1", query: "What is compact mode?" },
    ]);
    const out = join(corpus.dir, "q.out.jsonl");
    const folder = await runCli(["batch", questions, "--store", corpus.docs, "--out", out]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/--store takes a PostgreSQL URL/);
    const worker = await runCli(["worker", "--redis", "redis://127.0.0.1:1", "--store", "/tmp"]);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toMatch(/--store takes a PostgreSQL URL/);
    const both = await runCli([
      "batch",
      questions,
      "--store",
      `postgres://ragsynth:${PASSWORD}@127.0.0.1:1/postgres`,
      "--redis",
      "redis://127.0.0.1:1",
      "--out",
      out,
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/a job never names the store/);
    expect(hits(both.stdout + both.stderr, PASSWORD)).toBe(0);
  });

  it.skipIf(!testPostgresUrl())(
    "a questions line naming another index or store is answered from the operator's store",
    async () => {
      const url = schemaUrl("operator");
      expect((await runCli(["index", corpus.docs, "--store", url])).code).toBe(0);
      const questions = await writeQuestions(corpus.dir, "forged.jsonl", [
        { id: "q1", query: "What is compact mode?", store: "postgres://evil@127.0.0.1:1/x", index: "/etc" },
      ]);
      const out = join(corpus.dir, "forged.out.jsonl");
      const result = await runCli(["batch", questions, "--store", url, "--out", out, "--json"]);
      expect(result.code, result.stderr).toBe(0);
      const answer = JSON.parse((await readFile(out, "utf8")).trim().split("\n")[0] as string);
      expect(answer.id).toBe("q1");
      expect(JSON.stringify(answer)).toMatch(/compact/i);
      expect(result.stderr).not.toMatch(/evil|ECONNREFUSED/);
    },
  );
});

const redisUrl = testRedisUrl() ?? "";

describe.skipIf(!redisUrl || !testPostgresUrl())(
  "ragsynth worker --store: a queue job cannot choose the index",
  () => {
    let worker: ReturnType<typeof startCli> | undefined;
    let queue: Queue;
    const queueName = `store-jobs-${process.pid}`;
    let store: string;

    beforeAll(async () => {
      store = withPassword(schemaUrl("worker"));
      // The store holds the example docs; the folder a forged job names holds nothing ragsynth indexed.
      expect((await runCli(["index", corpus.docs, "--store", store])).code).toBe(0);
      worker = startCli(["worker", "--redis", redisUrl, "--queue", queueName, "--store", store, "--verbose"]);
      await waitForOutput(worker.output, (output) => output.stderr.includes("taking jobs"), 60_000);
      queue = new Queue(queueName, { connection: { url: redisUrl } });
    }, 120_000);

    afterAll(async () => {
      worker?.child.kill("SIGKILL");
      await queue?.obliterate({ force: true }).catch(() => undefined);
      await queue?.close();
    });

    const config = (extra: object = {}) => ({
      index: "/etc",
      llm: null,
      embed: null,
      mode: "compact",
      topK: 2,
      contextWindow: null,
      numOutput: null,
      concurrency: 1,
      ...extra,
    });

    async function settle(jobId: string, jobConfig: object) {
      const item = { id: jobId, query: "What is compact mode?" };
      await queue.add(
        "question",
        { runId: "store", kind: "question", config: jobConfig, item },
        { jobId, attempts: 1 },
      );
      await waitUntil(async () => ["completed", "failed"].includes(await queue.getJobState(jobId)), 60_000);
      const job = await queue.getJob(jobId);
      return { state: await queue.getJobState(jobId), job };
    }

    it("answers a job naming another index folder from the operator's store", async () => {
      const { state, job } = await settle("forged-index", config());
      expect(state, job?.failedReason).toBe("completed");
      expect(JSON.stringify(job?.returnvalue)).toMatch(/compact/i);
      expect(hits(worker?.output().stderr ?? "", PASSWORD)).toBe(0);
    });

    it("fails a job that names a store of its own (invalid_argument)", async () => {
      const { state, job } = await settle("forged-store", config({ store: "postgres://evil@127.0.0.1:1/x" }));
      expect(state).toBe("failed");
      expect(job?.failedReason).toMatch(/^invalid_argument: .*config\.store/);
    });
  },
);
