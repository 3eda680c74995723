// Issue 25, row 8: the call cache was trusted blindly. On main, an edited line (`text` = an injected answer,
// `usage` = -1e15 / 1e300) was replayed with the item's real sources, no call made, and the totals went
// negative or to 1e300.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FileCallCache, RedisCallCache } from "ragsynth/batch";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, TEST_API_KEY } from "../cli/run-cli.js";
import { testRedisUrl } from "../redis/redis-url.js";
import { writeQuestions } from "./security-helpers.js";

let server: FakeOpenAIServer;
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startFakeOpenAIServer({
    handler: () => ({ text: "The real answer.", usage: { promptTokens: 100, completionTokens: 10 } }),
  });
  corpus = await copyExampleDocs();
  env = { RAGSYNTH_LLM: `${server.url}#fake`, OPENAI_API_KEY: TEST_API_KEY };
  expect((await runCli(["index", corpus.docs], { env })).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await corpus?.cleanup();
});

describe("batch: an edited call-cache line is ignored and reported", () => {
  it.each([
    ["an injected answer", (entry: Record<string, unknown>) => ({ ...entry, text: "INJECTED ANSWER" })],
    [
      "negative usage",
      (entry: Record<string, unknown>) => ({ ...entry, usage: { promptTokens: -1e15, completionTokens: 1 } }),
    ],
    [
      "absurd usage",
      (entry: Record<string, unknown>) => ({
        ...entry,
        usage: { promptTokens: 1e300, completionTokens: 1e300 },
      }),
    ],
  ])("%s: not replayed, the call paid again, the totals sane, one warning", async (name, edit) => {
    const slug = name.replace(/\W+/g, "-");
    const questions = await writeQuestions(corpus.dir, `${slug}.jsonl`, [
      { id: "q1", query: "What is compact mode?" },
    ]);
    const cache = join(corpus.dir, `${slug}.calls.jsonl`);
    const args = (out: string) => [
      "batch",
      questions,
      "--index",
      join(corpus.docs, ".ragsynth"),
      "--out",
      join(corpus.dir, out),
      "--call-cache",
      cache,
      "--json",
    ];
    expect((await runCli(args(`${slug}-1.jsonl`), { env })).code).toBe(0);
    const lines = (await readFile(cache, "utf8")).trim().split("\n");
    expect(lines).toHaveLength(1);
    await writeFile(cache, `${JSON.stringify(edit(JSON.parse(lines[0] as string)))}\n`);

    const paid = server.requests.length;
    const second = await runCli(args(`${slug}-2.jsonl`), { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/ignored 1 call-cache entry .*1 with a checksum that does not match/);
    expect(server.requests.length).toBe(paid + 1);
    const summary = JSON.parse(second.stdout);
    expect(summary.promptTokens).toBe(100);
    expect(summary.completionTokens).toBe(10);
    const answer = JSON.parse(await readFile(join(corpus.dir, `${slug}-2.jsonl`), "utf8")).value.answer;
    expect(answer).toBe("The real answer.");
  });

  it("a cache written with RAGSYNTH_CACHE_HMAC_KEY is replayed with the same key and refused with another", async () => {
    const questions = await writeQuestions(corpus.dir, "hmac.jsonl", [
      { id: "q1", query: "What is refine?" },
    ]);
    const cache = join(corpus.dir, "hmac.calls.jsonl");
    const args = (out: string) => [
      "batch",
      questions,
      "--index",
      join(corpus.docs, ".ragsynth"),
      "--out",
      join(corpus.dir, out),
      "--call-cache",
      cache,
    ];
    expect(
      (await runCli(args("hmac-1.jsonl"), { env: { ...env, RAGSYNTH_CACHE_HMAC_KEY: "key-one-1234" } })).code,
    ).toBe(0);
    expect(JSON.parse(await readFile(cache, "utf8")).sum).toMatch(/^hmac-sha256:/);
    const paid = server.requests.length;
    const same = await runCli(args("hmac-2.jsonl"), {
      env: { ...env, RAGSYNTH_CACHE_HMAC_KEY: "key-one-1234" },
    });
    expect(same.stderr).not.toMatch(/ignored/);
    expect(server.requests.length).toBe(paid);
    const other = await runCli(args("hmac-3.jsonl"), {
      env: { ...env, RAGSYNTH_CACHE_HMAC_KEY: "key-two-5678" },
    });
    expect(other.stderr).toMatch(/ignored 1 call-cache entry/);
    expect(server.requests.length).toBe(paid + 1);
  });
});

describe("eval: the call cache is checked as batch checks it", () => {
  // Found while moving the CLI's cache handling: eval and eval generate opened their call cache without
  // RAGSYNTH_CACHE_HMAC_KEY and said nothing of the lines they refused, so with a key set, a line forged with the
  // plain checksum was replayed by eval (its answer scored as the model's) but refused by batch.
  it("a line with the plain checksum is refused under RAGSYNTH_CACHE_HMAC_KEY, said once, and paid again", async () => {
    const questions = await writeQuestions(corpus.dir, "eval-hmac.jsonl", [
      { id: "q1", query: "What is compact mode?" },
    ]);
    const cache = join(corpus.dir, "eval-hmac.calls.jsonl");
    const args = ["eval", questions, corpus.docs, "--modes", "compact", "--call-cache", cache, "--json"];
    // Written without a key: each line carries the plain checksum anyone can compute.
    const first = await runCli(args, { env });
    expect(first.code, first.stderr).toBe(0);
    const lines = (await readFile(cache, "utf8")).trim().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.parse(lines[0] as string).sum).not.toMatch(/^hmac-sha256:/);

    const paid = server.requests.length;
    const keyed = await runCli(args, { env: { ...env, RAGSYNTH_CACHE_HMAC_KEY: "key-one-1234" } });
    expect(keyed.code, keyed.stderr).toBe(0);
    expect(keyed.stderr).toMatch(
      new RegExp(
        `ignored ${lines.length} call-cache entr(y|ies) .*${lines.length} with a checksum that does not match`,
      ),
    );
    expect(server.requests.length).toBe(paid + lines.length);
  });
});

describe("the checks themselves", () => {
  it("FileCallCache counts what it refused", async () => {
    const path = join(corpus.dir, "unit.calls.jsonl");
    // A line as ragsynth writes it (checksum included), then the same line under another key.
    await (await FileCallCache.open(path)).set("a", { text: "A" });
    const good = JSON.parse((await readFile(path, "utf8")).trim());
    await writeFile(
      path,
      `${JSON.stringify(good)}\n${JSON.stringify({ ...good, key: "b" })}\nnot json\n{"key":"c","text":"C"}\n`,
    );
    const cache = await FileCallCache.open(path);
    expect(await cache.get("a")).toEqual({ text: "A" });
    expect(await cache.get("b")).toBeUndefined();
    expect(cache.rejected).toEqual({ checksum: 1, shape: 2 });
  });

  it.skipIf(!testRedisUrl())("RedisCallCache ignores a value edited in Redis (real Redis)", async () => {
    const { Redis } = await import("ioredis");
    const client = new Redis(testRedisUrl() as string);
    try {
      const prefix = `security:${process.pid}:`;
      const cache = new RedisCallCache({ client, prefix });
      await cache.set("key", { text: "real", usage: { promptTokens: 3, completionTokens: 1 } });
      expect(await cache.get("key")).toEqual({
        text: "real",
        usage: { promptTokens: 3, completionTokens: 1 },
      });
      const stored = JSON.parse((await client.get(`${prefix}key`)) as string);
      await client.set(`${prefix}key`, JSON.stringify({ ...stored, text: "INJECTED" }));
      expect(await cache.get("key")).toBeUndefined();
      expect(cache.rejected.checksum).toBe(1);
      await client.del(`${prefix}key`);
    } finally {
      client.disconnect();
    }
  });
});
