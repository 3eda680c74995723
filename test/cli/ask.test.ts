import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { RESPONSE_MODES } from "ragsynth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli } from "./run-cli.js";

const QUESTION = "What is the default response mode?";
let docs: string;
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, docs, cleanup } = await copyExampleDocs());
  // Build the index once, so the tests below measure querying, not indexing.
  const result = await runCli(["index", docs]);
  expect(result.code, result.stderr).toBe(0);
});
afterAll(() => cleanup());

describe("ragsynth ask (offline defaults)", () => {
  it("answers from examples/docs with sources and a summary line, and says it is offline", async () => {
    const { code, stdout, stderr } = await runCli(["ask", docs, "--query", QUESTION]);
    expect(code, stderr).toBe(0);
    const [answer, rest] = stdout.split("\nSources:\n");
    expect(answer).toContain("The default response mode is `compact`.");
    expect(rest).toMatch(/\[1\] +\d+\.\d{3} +\S*docs\/response-modes\.md/);
    expect(stdout.trimEnd().split("\n").at(-1)).toMatch(
      /^compact · 1 LLM call · [\d,]+ prompt \+ [\d,]+ completion tokens · [\d.]+ m?s · extractive$/,
    );
    const notices = stderr.trim().split("\n");
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /running offline.*RAGSYNTH_LLM=openai:gpt-4o-mini with OPENAI_API_KEY.*OPENAI_BASE_URL.*ollama/,
    );
  });

  it("prints a warning notice when --num-output is over half the window (refine, compact)", async () => {
    const { code, stderr } = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--mode",
      "refine",
      // 410 is over half of 800, and the refine step still has ~80 tokens of room beside the offline answer
      // (~235 tokens since quotes bring their code-naming neighbours; 640/330 left none). At 480/250 the room was
      // 0 or 1 token, depending on how the random temp folder's name tokenized in the source paths: the run
      // failed one time in three with a (correct) context overflow.
      "--context-window",
      "800",
      "--num-output",
      "410",
      "--json",
    ]);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/ragsynth: warning: numOutput 410 is over half of contextWindow 800/);
  });

  it("takes the question after `--` too", async () => {
    const { code, stdout } = await runCli([
      "ask",
      docs,
      "--",
      "What",
      "is",
      "the",
      "default",
      "response",
      "mode?",
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain("`compact`");
  });

  it.concurrent.for(RESPONSE_MODES)("runs in mode %s", async (mode, { expect }) => {
    const { code, stdout, stderr } = await runCli(["ask", docs, "-q", QUESTION, "--mode", mode, "--json"]);
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.mode).toBe(mode);
    expect(result.sources.length).toBeGreaterThan(0);
    if (mode === "no_text") expect(result.answer).toBe("");
    else if (mode === "context_only") expect(result.answer).toContain(result.sources[0].text.slice(0, 40));
    else if (mode === "generation") expect(result.usage.llmCalls).toBe(1);
    else expect(result.answer).toContain("compact");
    const calls = result.events.filter((event: { type: string }) => event.type === "llm-call-end").length;
    expect(result.usage.llmCalls).toBe(calls);
  });

  it("--json prints one JSON document with answer, sources, usage, timings and events, and nothing else", async () => {
    const { code, stdout } = await runCli(["ask", docs, "-q", QUESTION, "--json", "--trace", "--stream"]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(Object.keys(result)).toEqual(
      expect.arrayContaining([
        "query",
        "mode",
        "answer",
        "sources",
        "usage",
        "timings",
        "llm",
        "embed",
        "index",
        "events",
      ]),
    );
    expect(result.sources[0]).toMatchObject({
      rank: 1,
      file: `${docs}/response-modes.md`,
      score: expect.any(Number),
    });
    expect(result.usage).toMatchObject({
      llmCalls: 1,
      promptTokens: expect.any(Number),
      completionTokens: expect.any(Number),
    });
    expect(result.timings.totalMs).toBeGreaterThanOrEqual(result.timings.synthesizeMs);
    expect(result.llm).toMatchObject({
      model: "extractive",
      offline: true,
      contextWindow: 4096,
      numOutput: 256,
    });
    expect(result.events.map((event: { type: string }) => event.type)).toEqual(
      expect.arrayContaining([
        "retrieve-end",
        "synthesize-start",
        "pack",
        "llm-call-start",
        "llm-call-end",
        "synthesize-end",
      ]),
    );
  });

  it("--trace draws the refine chain with tokens", async () => {
    const { code, stdout } = await runCli(["ask", docs, "-q", QUESTION, "--mode", "refine", "--trace"]);
    expect(code).toBe(0);
    const trace = stdout.slice(stdout.indexOf("Trace:"));
    expect(trace).toMatch(/retrieve +4 chunks · [\d,]+ tokens/);
    expect(trace).toMatch(/┌ +1\. answer +prompt [\d,]+ → completion \d+/);
    expect(trace).toMatch(/├ +2\. refine +prompt [\d,]+ → completion \d+/);
    expect(trace).toMatch(/└ +4\. refine +prompt/);
    expect(trace).toMatch(/total +4 LLM calls/);
  });

  it("--trace draws tree_summarize by level", async () => {
    const { code, stdout } = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--mode",
      "tree_summarize",
      "--context-window",
      "420",
      "--num-output",
      "64",
      "--trace",
    ]);
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/level 0 +packed into [2-9] chunks/);
    expect(stdout).toMatch(/├─ summary 1\/\d/);
    expect(stdout).toMatch(/level 1 \(root\)[^\n]*\n +└─ root +prompt/);
  });

  it("--trace shows the optimizer's tokens before and after", async () => {
    const { code, stdout } = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--optimizer",
      "percentile=0.5",
      "--trace",
    ]);
    expect(code).toBe(0);
    const match = /SentenceEmbeddingOptimizer: ([\d,]+) → ([\d,]+) tokens/.exec(stdout);
    expect(match).not.toBeNull();
    const [before, after] = [match?.[1], match?.[2]].map((value) => Number(value?.replace(/,/g, "")));
    expect(after).toBeLessThan(before as number);
  });

  it("prints nothing to stderr but the offline notice when stderr is not a terminal", async () => {
    const { stderr } = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--llm",
      "extractive",
      "--embed",
      "hashing",
    ]);
    expect(stderr).toBe("");
  });
});

describe("ragsynth errors", () => {
  it("lists the valid modes for an unknown one, exit 2", async () => {
    const { code, stdout, stderr } = await runCli(["ask", docs, "-q", QUESTION, "--mode", "fastest"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `ragsynth: Unknown response mode "fastest". Valid modes: ${RESPONSE_MODES.join(", ")}.\n`,
    );
  });

  it("lists the valid options for an unknown one, exit 2", async () => {
    const { code, stderr } = await runCli(["plan", docs, "-q", QUESTION, "--price", "1"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^ragsynth: Unknown option --price for plan\. .*Valid options: --query, .*--price-in, --price-out/,
    );
    expect(stderr.trim().split("\n")).toHaveLength(1);
  });

  it("reports a missing path in one line, exit 2", async () => {
    const { code, stderr } = await runCli(["ask", join(dir, "nope"), "-q", QUESTION, "--llm", "extractive"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^ragsynth: No such file or folder: .*nope.*\n$/);
  });

  it("reports an empty folder, non-zero exit", async () => {
    const empty = join(dir, "empty");
    await mkdir(empty, { recursive: true });
    const { code, stderr } = await runCli(["ask", empty, "-q", QUESTION, "--llm", "extractive"]);
    expect(code).not.toBe(0);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^ragsynth: No (readable )?.*(documents|files).*empty/i);
  });

  it("reports files it skipped on stderr and answers from the rest", async () => {
    const mixed = join(dir, "mixed");
    await mkdir(mixed, { recursive: true });
    await writeFile(join(mixed, "modes.md"), "The default response mode is compact.\n");
    await writeFile(join(mixed, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    await writeFile(join(mixed, "broken.md"), Buffer.from([0x23, 0x20, 0, 0xff]));
    const { code, stdout, stderr } = await runCli(["ask", mixed, "-q", QUESTION, "--llm", "extractive"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("compact");
    expect(stderr).toBe(
      "ragsynth: read 1 file (markdown 1) · skipped 2 (binary 1, unsupported 1) (-v lists them)\n",
    );
    const verbose = await runCli(["ask", mixed, "-q", QUESTION, "--llm", "extractive", "-v"]);
    expect(verbose.stderr).toMatch(/^ragsynth: skipped .*broken\.md \(binary\): binary file.*$/m);
    expect(verbose.stderr).toMatch(/^ragsynth: skipped .*image\.png \(unsupported\): an image.*$/m);
  });

  it("a bad --llm spec is a usage error with the valid forms", async () => {
    const { code, stderr } = await runCli(["ask", docs, "-q", QUESTION, "--llm", "gpt-4o"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^ragsynth: Cannot read --llm "gpt-4o": expected extractive, openai:<model>.*Did you mean openai:gpt-4o or ollama:gpt-4o\?\n$/,
    );
  });

  it("--verbose adds the stack trace to a runtime error", async () => {
    const quiet = await runCli(["ask", docs, "-q", QUESTION, "--llm", "http://127.0.0.1:9/v1#none"]);
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).not.toMatch(/\n\s+at /);
    const verbose = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--llm",
      "http://127.0.0.1:9/v1#none",
      "--verbose",
    ]);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/\n\s+at /);
  });

  it("has --help for each command and --version", async () => {
    for (const command of ["ask", "plan", "index"]) {
      const { code, stdout } = await runCli([command, "--help"]);
      expect(code).toBe(0);
      expect(stdout).toMatch(new RegExp(`^Usage: ragsynth ${command} `));
    }
    const version = await runCli(["--version"]);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
