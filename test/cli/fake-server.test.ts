import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, copyExampleDocs, runCli, startCli, TEST_API_KEY, waitForOutput } from "./run-cli.js";

const QUESTION = "What is the default response mode?";
const ANSWER_DELTAS = ["The ", "default ", "response ", "mode ", "is ", "compact."];
let docs: string;
let cleanup: () => Promise<void>;
let server: FakeOpenAIServer;

beforeAll(async () => {
  ({ docs, cleanup } = await copyExampleDocs());
  server = await startFakeOpenAIServer({ handler: () => ({ deltas: ANSWER_DELTAS }) });
  const indexed = await runCli(["index", docs]);
  expect(indexed.code, indexed.stderr).toBe(0);
});
afterAll(async () => {
  await server?.close();
  await cleanup();
});

function expectNoKey(result: Pick<CliResult, "stdout" | "stderr">) {
  expect(result.stdout).not.toContain(TEST_API_KEY);
  expect(result.stderr).not.toContain(TEST_API_KEY);
  // Not even a recognisable piece of it.
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/9f8e7d6c5b4a/);
}

describe("ragsynth ask against an OpenAI-compatible server", () => {
  it("streams the answer from --llm <url>#<model>", async () => {
    const first = server.requests.length;
    const result = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--llm",
      `${server.url}#fake-model`,
      "--stream",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.startsWith(`${ANSWER_DELTAS.join("")}\n\nSources:\n`)).toBe(true);
    const calls = server.requests.slice(first).filter((request) => request.path === "/v1/chat/completions");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toMatchObject({ model: "fake-model", stream: true });
    expect(result.stdout).toMatch(
      /compact · 1 LLM call · [\d,]+ prompt \+ \d+ completion tokens · .* · fake-model\n$/,
    );
    // An unknown model's window is an assumption, said once; no offline notice, since a model was configured.
    expect(result.stderr).toMatch(
      /^ragsynth: note: contextWindow 3900 assumed for unknown model fake-model.*--context-window/,
    );
    expect(result.stderr).not.toMatch(/offline/);
  });

  it("reads `-q -` from stdin and sends that question, not the dash", async () => {
    const first = server.requests.length;
    const result = await runCli(["ask", docs, "-q", "-", "--llm", `${server.url}#fake-model`], {
      stdin: `${QUESTION}\n`,
    });
    expect(result.code, result.stderr).toBe(0);
    const call = server.requests.slice(first).find((request) => request.path === "/v1/chat/completions");
    expect(call?.prompt).toContain(`Query: ${QUESTION}`);
  });

  it("names RAGSYNTH_API_KEY in a 401's hint when that variable held the key", async () => {
    const denied = await startFakeOpenAIServer({
      faults: [{ kind: "status", status: 401, message: "Bad key." }],
    });
    try {
      const result = await runCli(["ask", docs, "-q", QUESTION, "--llm", `${denied.url}#fake-model`], {
        env: { RAGSYNTH_API_KEY: TEST_API_KEY, OPENAI_API_KEY: "sk-other-key-0123456789" },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/Check RAGSYNTH_API_KEY \(it wins over OPENAI_API_KEY\)/);
      expectNoKey(result);
    } finally {
      await denied.close();
    }
  });

  it("an unreachable --llm URL points at --llm, and no offline notice is printed when --embed names a model", async () => {
    const unreachable = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--llm",
      "http://127.0.0.1:9/v1#fake-model",
    ]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/Check that the server is running/);
    expect(unreachable.stderr).not.toMatch(/OPENAI_BASE_URL/);
    const embedded = await runCli(["ask", docs, "-q", QUESTION, "--embed", `${server.url}#fake-embed`]);
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(embedded.stderr).not.toMatch(/no model configured/);
    expect(embedded.stderr).toMatch(/no --llm given, so answers are extractive .*retrieval uses http/);
  });

  it("keeps a key of any shape out of the trace page when the model echoes it", async () => {
    const key = "local-token-7f3a9c2e1b5d";
    const echo = await startFakeOpenAIServer({ handler: () => `The key is ${key}, as you sent it.` });
    const page = join(tmpdir(), `ragsynth-report-${process.pid}.html`);
    try {
      const result = await runCli(
        ["ask", docs, "-q", QUESTION, "--llm", `${echo.url}#fake-model`, "--report", page],
        { env: { RAGSYNTH_API_KEY: key } },
      );
      expect(result.code, result.stderr).toBe(0);
      const html = await readFile(page, "utf8");
      expect(html).toContain("[REDACTED]");
      expect(html).not.toContain(key);
      expect(`${result.stdout}${result.stderr}`).not.toContain(key);
    } finally {
      await echo.close();
      await rm(page, { force: true });
    }
  });

  it("plan calls no model: the server gets no completion request", async () => {
    const first = server.requests.length;
    const result = await runCli([
      "plan",
      docs,
      "-q",
      QUESTION,
      "--llm",
      `${server.url}#fake-model`,
      "--context-window",
      "8192",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("fake-model · context window 8,192");
    expect(server.requests.slice(first).filter((request) => request.path.includes("completions"))).toEqual(
      [],
    );
  });

  it("exits 130 on Ctrl-C (SIGINT), and the server sees the request closed", async () => {
    const slow = await startFakeOpenAIServer({ faults: [{ kind: "never-ending", intervalMs: 20 }] });
    try {
      const run = startCli(["ask", docs, "-q", QUESTION, "--llm", `${slow.url}#fake-model`, "--stream"]);
      await waitForOutput(run.output, ({ stdout }) => stdout.includes("more more more"));
      run.child.kill("SIGINT");
      const result = await run.done;
      expect(result.code).toBe(130);
      expect(result.stderr).toMatch(/ragsynth: interrupted\.\n$/);
      const request = await slow.waitForClose(0, 2000);
      expect(request.closedByClient).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it("never prints the API key: --json, --trace, --verbose, plan, and a server error that echoes it", async () => {
    const leaky = await startFakeOpenAIServer({
      handler: () => ({ deltas: ANSWER_DELTAS }),
      faults: [
        {
          kind: "status",
          status: 401,
          message: `Incorrect API key provided: ${TEST_API_KEY}.`,
          requests: [0],
        },
      ],
    });
    const env = { OPENAI_API_KEY: TEST_API_KEY };
    const llm = ["--llm", `${leaky.url}#fake-model`, "--context-window", "8192"];
    try {
      const failed = await runCli(["ask", docs, "-q", QUESTION, ...llm, "--trace", "--verbose", "--json"], {
        env,
      });
      expect(failed.code).toBe(1);
      const errorLine = failed.stderr
        .split("\n")
        .find((line) => !/^ragsynth: (note|skipped|read \d)/.test(line));
      expect(errorLine).toMatch(/^ragsynth: .*Check OPENAI_API_KEY/);
      expectNoKey(failed);

      const runs = await Promise.all([
        runCli(["ask", docs, "-q", QUESTION, ...llm, "--json", "--trace", "--verbose"], { env }),
        runCli(["ask", docs, "-q", QUESTION, ...llm, "--trace", "--verbose", "--stream"], { env }),
        runCli(["plan", docs, "-q", QUESTION, ...llm, "--json", "--verbose"], { env }),
        runCli(
          [
            "ask",
            docs,
            "-q",
            QUESTION,
            "--llm",
            "openai:fake-model",
            "--embed",
            "openai:fake-embed",
            "--context-window",
            "8192",
            "--json",
          ],
          {
            env: { ...env, OPENAI_BASE_URL: leaky.url },
          },
        ),
      ]);
      for (const run of runs) {
        expect(run.code, run.stderr).toBe(0);
        expectNoKey(run);
      }
      expect(JSON.parse(runs[0]?.stdout ?? "").answer).toBe(ANSWER_DELTAS.join(""));
      // The key was in use: the server was asked for chat completions and embeddings.
      expect(leaky.requests.some((request) => request.path === "/v1/embeddings")).toBe(true);
    } finally {
      await leaky.close();
    }
  });
});

describe("ragsynth ask against a server that answers wrongly", () => {
  it("an HTML page is an error (exit 1), streamed or not, never an empty answer", async () => {
    const html = await startFakeOpenAIServer({
      faults: [
        { kind: "raw", contentType: "text/html", body: "<html><body>Welcome to nginx!</body></html>" },
      ],
    });
    try {
      for (const mode of ["--stream", "--json"]) {
        const result = await runCli(["ask", docs, "-q", QUESTION, "--llm", `${html.url}#m`, mode]);
        expect(result.code, `${mode}: ${result.stdout}`).toBe(1);
        expect(result.stderr).toMatch(/OpenAI-compatible \/v1 endpoint/);
        expect(result.stdout).not.toMatch(/Empty Response/);
      }
    } finally {
      await html.close();
    }
  }, 60_000);

  it("credentials in the --llm URL are refused and never printed, even with --verbose", async () => {
    const result = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--llm",
      "http://user:hunter2@127.0.0.1:9/v1#m",
      "--verbose",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no user name or password/);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/hunter2/);
    expect(result.stderr).not.toMatch(/attempts/);
  });
});
