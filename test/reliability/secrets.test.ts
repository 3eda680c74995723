import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatWithOptions, inspect } from "node:util";
import type { Tracer } from "@opentelemetry/api";
import {
  getResponseSynthesizer,
  LLMRerank,
  OpenAILike,
  OpenAILikeEmbedding,
  type OpenAILikeOptions,
  RagsynthError,
  type RagsynthEvent,
  type ResponseMode,
  SentenceEmbeddingOptimizer,
  TextNode,
} from "ragsynth";
import { type FakeOpenAIFaultRule, type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { closedPort, collectUnhandledRejections, instantSleep, rejectionOf, thrownBy } from "./helpers.js";

collectUnhandledRejections();

const KEY = "sk-ragsynth-TEST-KEY-0123456789";
/** Pieces of the key that must not show up either (a server or a log may cut the prefix off). */
const KEY_PIECES = [KEY, "ragsynth-TEST-KEY-0123456789", "TEST-KEY-0123456789"];

function expectNoKey(captured: string, where: string) {
  for (const piece of KEY_PIECES)
    expect(captured.includes(piece), `${where} contains ${piece}:\n${captured.slice(0, 4000)}`).toBe(false);
}

/** Everything an error exposes: message, stack, every cause (and lastError), JSON, and a deep inspection. */
function everythingAbout(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  const walk = (value: unknown, depth: number) => {
    if (depth > 10 || value === undefined || value === null || seen.has(value)) return;
    seen.add(value);
    if (value instanceof Error) {
      parts.push(value.message, value.stack ?? "", String(value));
      walk(value.cause, depth + 1);
      walk((value as { lastError?: unknown }).lastError, depth + 1);
    } else {
      parts.push(String(value));
    }
  };
  walk(error, 0);
  parts.push(
    JSON.stringify(error) ?? "",
    inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
  );
  return parts.join("\n");
}

/** A tracer that records everything given to spans: names, attributes, events, exceptions and statuses. */
function recordingTracer() {
  const log: unknown[] = [];
  const record = <T>(value: unknown, result: T): T => {
    log.push(value);
    return result;
  };
  const span = (name: string) => {
    log.push(name);
    const self = {
      spanContext: () => ({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 }),
      setAttribute: (key: string, value: unknown) => record({ key, value }, self),
      setAttributes: (attributes: unknown) => record(attributes, self),
      addEvent: (eventName: string, attributes?: unknown) => record({ eventName, attributes }, self),
      addLink: () => self,
      addLinks: () => self,
      setStatus: (status: unknown) => record(status, self),
      updateName: () => self,
      end: () => {},
      isRecording: () => true,
      recordException: (exception: unknown) => void log.push(everythingAbout(exception)),
    };
    return self;
  };
  const tracer = {
    startSpan: (name: string, options?: { attributes?: unknown }) => record(options?.attributes, span(name)),
  };
  return {
    tracer: tracer as unknown as Tracer,
    text: () => inspect(log, { depth: Number.POSITIVE_INFINITY }),
  };
}

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  vi.restoreAllMocks();
});

async function serve(faults: FakeOpenAIFaultRule[] = []) {
  const server = await startFakeOpenAIServer({
    faults,
    handler: ({ prompt }) => `answer to ${prompt.length} chars`,
  });
  servers.push(server);
  return server;
}

const ECHOING_401: FakeOpenAIFaultRule = {
  kind: "status",
  status: 401,
  message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
  code: "invalid_api_key",
};
const ECHOING_400: FakeOpenAIFaultRule = {
  kind: "status",
  status: 400,
  message: `Malformed header Authorization: Bearer ${KEY} (api-key=${KEY})`,
};
const ECHOING_500: FakeOpenAIFaultRule = {
  kind: "status",
  status: 500,
  message: `upstream said key ${KEY} is throttled`,
};

/** Runs one synthesis and captures the error, the events, the verbose log and the spans, as text. */
async function captureSynthesis(options: Partial<OpenAILikeOptions>, mode: ResponseMode = "tree_summarize") {
  const logged: string[] = [];
  for (const method of ["info", "log", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation(
      (...args: unknown[]) =>
        void logged.push(formatWithOptions({ depth: Number.POSITIVE_INFINITY }, ...args)),
    );
  }
  const events: RagsynthEvent[] = [];
  const retries: unknown[] = [];
  const { tracer, text: spans } = recordingTracer();
  const llm = new OpenAILike({
    model: "fake-model",
    apiKey: KEY,
    contextWindow: 4096,
    maxRetries: 1,
    _internal: { sleep: instantSleep().sleep },
    onRetry: (event) => retries.push(event),
    ...options,
  });
  const synthesizer = getResponseSynthesizer({
    responseMode: mode,
    llm,
    verbose: true,
    tracer,
    onEvent: (event) => events.push(event),
  });
  const nodes = [1, 2, 3].map((index) => ({ node: new TextNode({ text: `node ${index} text` }), score: 1 }));
  let error: unknown;
  try {
    await synthesizer.synthesize({ query: "q", nodes });
  } catch (caught) {
    error = caught;
  }
  const captured = [
    everythingAbout(error),
    JSON.stringify(events),
    inspect(events, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    ...events.map((event) => ("error" in event ? everythingAbout(event.error) : "")),
    inspect(retries, { depth: Number.POSITIVE_INFINITY }),
    ...retries.map((event) => everythingAbout((event as { error: unknown }).error)),
    logged.join("\n"),
    spans(),
  ].join("\n");
  return { error, captured, events, logged };
}

describe("secrets: the API key never appears in errors, events, verbose logs or spans (library)", () => {
  it("after a 401 whose body echoes the key", async () => {
    const server = await serve([ECHOING_401]);
    const { error, captured, logged } = await captureSynthesis({ baseURL: server.url });
    expect(RagsynthError.isInstance(error, "llm_auth")).toBe(true);
    // The server's message did get through, with the key scrubbed: the check is looking at the right text.
    expect((error as Error).message).toMatch(/Incorrect API key provided: \[REDACTED\]/);
    expect(logged.some((line) => line.includes("synthesize-end"))).toBe(true);
    expectNoKey(captured, "library capture after 401");
  });

  it("after a 400 that echoes the Authorization header, and a retried 500 that echoes the key", async () => {
    for (const fault of [ECHOING_400, ECHOING_500]) {
      const server = await serve([fault]);
      const { error, captured } = await captureSynthesis({ baseURL: server.url });
      expect(RagsynthError.isInstance(error)).toBe(true);
      expect(captured).toContain("[REDACTED]");
      expectNoKey(captured, `library capture after ${fault.kind === "status" ? fault.status : ""}`);
    }
  });

  it("with an unreachable server", async () => {
    const port = await closedPort();
    const { error, captured } = await captureSynthesis({ baseURL: `http://127.0.0.1:${port}/v1` });
    expect(
      RagsynthError.isInstance(error, "retries_exhausted") ||
        RagsynthError.isInstance(error, "llm_unreachable"),
    ).toBe(true);
    expect(captured).toContain(`127.0.0.1:${port}`);
    expectNoKey(captured, "library capture when unreachable");
  });

  it("with a timeout, and on a successful run with a retried 429", async () => {
    const slow = await serve([{ kind: "slow-first-byte", delayMs: 5000 }]);
    const timedOut = await captureSynthesis({ baseURL: slow.url, timeoutMs: 100 }, "compact");
    expect(RagsynthError.isInstance(timedOut.error, "llm_timeout")).toBe(true);
    expectNoKey(timedOut.captured, "library capture after a timeout");

    const flaky = await serve([{ kind: "rate-limit", retryAfterMs: 1, requests: [0] }]);
    const ok = await captureSynthesis({ baseURL: flaky.url }, "accumulate");
    expect(ok.error).toBeUndefined();
    expect(ok.events.some((event) => event.type === "synthesize-end" && event.usage.retries === 1)).toBe(
      true,
    );
    expectNoKey(ok.captured, "library capture of a successful run");
  });

  it("with the key in a custom auth header (Azure-style api-key) rather than apiKey", async () => {
    const server = await serve([
      { ...ECHOING_401, message: `Access denied due to invalid subscription key ${KEY}.` },
    ]);
    const { error, captured } = await captureSynthesis({
      baseURL: server.url,
      apiKey: "unused-placeholder",
      headers: { "api-key": KEY },
    });
    expect(RagsynthError.isInstance(error, "llm_auth")).toBe(true);
    expectNoKey(captured, "library capture with an api-key header");
  });

  it("embeddings: a 401 that echoes the key", async () => {
    const server = await serve([ECHOING_401]);
    const embedModel = new OpenAILikeEmbedding({ model: "fake-embed", baseURL: server.url, apiKey: KEY });
    const error = await rejectionOf(embedModel.getTextEmbeddings(["hello"]));
    expect(RagsynthError.isInstance(error, "llm_auth")).toBe(true);
    expectNoKey(everythingAbout(error), "embedding error");
  });

  it("an options object passed where a model or embedModel belongs: invalid_argument, key scrubbed", () => {
    const options = { model: "gpt-4o-mini", apiKey: KEY, headers: { Authorization: `Bearer ${KEY}` } };
    for (const build of [
      () => new LLMRerank({ llm: options as never }),
      () => new SentenceEmbeddingOptimizer({ embedModel: options as never, percentileCutoff: 0.5 }),
    ]) {
      const error = thrownBy(build);
      expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
      expect((error as Error).message).toMatch(/"apiKey":"\[REDACTED\]"/);
      expectNoKey(everythingAbout(error), "invalid_argument error");
    }
  });
});

// --- The CLI, as a child process ---------------------------------------------------------------------------

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "src/cli/bin.ts");
let cacheDir: string;
beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), "ragsynth-secrets-"));
});
afterAll(() => rm(cacheDir, { recursive: true, force: true }));

interface CliRun {
  args: string[];
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", bin, ...args],
      {
        cwd: root,
        timeout: 30_000,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1", ...env },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        if (process.env.RAGSYNTH_DEBUG_CLI)
          console.info(
            `[cli] ${Date.now() - started} ms exit ${code}: ${args.join(" ")}\n${stdout.slice(0, 1500)}\n${stderr.slice(0, 3000)}`,
          );
        resolve({ args, code, stdout, stderr });
      },
    );
  });
}

describe("secrets: the CLI's --json, --trace and --verbose output never shows the key", () => {
  it("on success, after a 401 that echoes the key, with an unreachable server, and with the key in the --llm URL", {
    timeout: 60_000,
  }, async () => {
    const good = await serve([{ kind: "rate-limit", retryAfterMs: 1, requests: [0] }]);
    const denied = await serve([ECHOING_401]);
    const port = await closedPort();
    const ask = ["ask", "examples/docs", "-q", "What is the default response mode?", "--cache-dir", cacheDir];
    const withKey = (baseURL: string) => ({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: baseURL });
    const hostPort = (url: string) => url.replace(/^http:\/\//, "");

    // Two at a time: each child compiles the CLI with tsx, and the suite shares the CPU with timing-sensitive tests.
    const specs: Array<[string[], Record<string, string>]> = [
      [[...ask, "--llm", "openai:fake-model", "--json", "--trace", "--verbose"], withKey(good.url)],
      [
        [...ask, "--llm", "openai:fake-model", "--trace", "--verbose", "--stream", "-m", "tree_summarize"],
        withKey(good.url),
      ],
      [
        [...ask, "--llm", "openai:fake-model", "--json", "--trace", "--verbose", "--stream"],
        withKey(denied.url),
      ],
      [
        [...ask, "--llm", `http://127.0.0.1:${port}/v1#fake-model`, "--json", "--trace", "--verbose"],
        withKey(`http://127.0.0.1:${port}/v1`),
      ],
      // The key given only inside the URL (user info), not in the environment the CLI redacts.
      [
        [
          ...ask,
          "--llm",
          `http://user:${KEY}@${hostPort(denied.url)}#fake-model`,
          "--json",
          "--trace",
          "--verbose",
        ],
        {},
      ],
    ];
    const runs: CliRun[] = [];
    for (let index = 0; index < specs.length; index += 2) {
      runs.push(
        ...(await Promise.all(specs.slice(index, index + 2).map(([args, env]) => runCli(args, env)))),
      );
    }

    const [okJson, okTrace, denied401, unreachable, keyInUrl] = runs as [
      CliRun,
      CliRun,
      CliRun,
      CliRun,
      CliRun,
    ];
    // The runs did what they were meant to: the checks below look at real output.
    expect(okJson.code, okJson.stderr).toBe(0);
    expect(JSON.parse(okJson.stdout)).toMatchObject({ command: "ask" });
    expect(okTrace.code, okTrace.stderr).toBe(0);
    expect(okTrace.stdout).toMatch(/Trace:/);
    expect(denied401.code).toBe(1);
    expect(JSON.parse(denied401.stdout)).toMatchObject({ error: { code: "llm_auth" } });
    expect(denied401.stderr).toMatch(/Incorrect API key provided: \[REDACTED\]/);
    expect(denied401.stderr).toMatch(/Caused by/);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/127\.0\.0\.1/);
    expect(keyInUrl.code).toBe(1);

    for (const run of runs) expectNoKey(`${run.stdout}\n${run.stderr}`, `ragsynth ${run.args.join(" ")}`);
    // Nor in the index the CLI cached.
    for (const file of await readdir(cacheDir, { recursive: true })) {
      const text = await readFile(join(cacheDir, String(file)), "utf8").catch(() => "");
      expectNoKey(text, `cache file ${String(file)}`);
    }
  });
});
