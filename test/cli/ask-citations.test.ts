import { readFile } from "node:fs/promises";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, ROOT, runCli } from "./run-cli.js";

const QUESTION = "What is the default response mode?";
// A good citation, one naming a source the model was not given, one sentence no source supports.
const ANSWER = "The default response mode is compact [1]. It was chosen by moon penguins [1]. See also [99].";
let docs: string;
let cleanup: () => Promise<void>;
let server: FakeOpenAIServer;

beforeAll(async () => {
  ({ docs, cleanup } = await copyExampleDocs());
  server = await startFakeOpenAIServer({
    handler: () => ({ text: ANSWER, deltas: ANSWER.match(/.{1,4}/g) ?? [] }),
  });
  const indexed = await runCli(["index", docs]);
  expect(indexed.code, indexed.stderr).toBe(0);
});
afterAll(async () => {
  await server?.close();
  await cleanup();
});

describe("ragsynth ask --citations", () => {
  it("offline: quotes cited with the numbered source they come from", async () => {
    const { code, stdout, stderr } = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--citations",
      "--no-stream",
    ]);
    expect(code, stderr).toBe(0);
    const [answer, rest = ""] = stdout.split("\nSources:\n");
    expect(answer).toMatch(/The default response mode is `compact`\.[^[]*\[\d+\]/);
    expect(rest).toMatch(/\[1\] +\d+\.\d{3} +\S*docs\/\S+\.md/);
    expect(rest).not.toMatch(/invalid citation/);
  });

  it("with a model: invalid markers removed and reported, unsupported sentences flagged, streamed", async () => {
    const { code, stdout, stderr } = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--llm",
      `${server.url}#fake-model`,
      "--citations",
      "--stream",
    ]);
    expect(code, stderr).toBe(0);
    expect(
      stdout.startsWith(
        "The default response mode is compact [1]. It was chosen by moon penguins [1]. See also.\n",
      ),
    ).toBe(true);
    expect(stdout).toMatch(/invalid citation \[99\]: no source 99 \(removed\)/);
    expect(stdout).toMatch(
      /unsupported citation \[1\] \(lexical 0\.\d\d\): It was chosen by moon penguins \[1\]\./,
    );
    expect(stdout).not.toMatch(/unsupported citation \[1\] \(lexical [\d.]+\): The default/);
  });

  it("--json carries the citations", async () => {
    const { code, stdout, stderr } = await runCli([
      "ask",
      docs,
      "-q",
      QUESTION,
      "--llm",
      `${server.url}#fake-model`,
      "--citations",
      "--json",
    ]);
    expect(code, stderr).toBe(0);
    const json = JSON.parse(stdout);
    expect(json.answer).toBe(
      "The default response mode is compact [1]. It was chosen by moon penguins [1]. See also.",
    );
    expect(json.citations.invalid).toEqual([{ marker: "[99]", numbers: [99], offset: expect.any(Number) }]);
    expect(json.citations.citations).toHaveLength(2);
    expect(json.citations.unsupported).toEqual([
      { source: 1, sentence: "It was chosen by moon penguins [1]." },
    ]);
    expect(json.citations.sources[0]).toMatchObject({
      number: 1,
      location: { filePath: expect.any(String) },
    });
  });

  it("the README's --citations example is what the CLI prints (summary line aside)", async () => {
    const readme = await readFile(`${ROOT}/README.md`, "utf8");
    const command =
      '$ ragsynth ask docs --query "What is the default response mode?" --citations --no-stream\n';
    const start = readme.indexOf(command);
    expect(start).toBeGreaterThan(0);
    const shown = readme.slice(start + command.length, readme.indexOf("```", start));
    // A copy of its own, as a reader has it: the shared one's index names its files by their absolute path (it was
    // built from another folder), and an ask keeps the names its index has.
    const fresh = await copyExampleDocs();
    try {
      const cwd = fresh.docs.slice(0, -"/docs".length);
      const { code, stdout, stderr } = await runCli(
        ["ask", "docs", "--query", "What is the default response mode?", "--citations", "--no-stream"],
        { cwd, env: { NO_COLOR: "1" } },
      );
      expect(code, stderr).toBe(0);
      const printed = stdout.slice(0, stdout.lastIndexOf("\n\n") + 1);
      expect(printed).toBe(shown);
    } finally {
      await fresh.cleanup();
    }
  });

  it("--judge asks LlamaIndex's faithfulness question of each citation; its NO flags, its YES clears", async () => {
    const JUDGE_QUESTION = "Please tell if a given piece of information is supported by the context.";
    const judge = await startFakeOpenAIServer({
      handler: ({ prompt }) =>
        !prompt.startsWith(JUDGE_QUESTION)
          ? "unexpected"
          : prompt.includes("Information: It was chosen by moon penguins.")
            ? "NO"
            : "YES",
    });
    try {
      const { code, stdout, stderr } = await runCli([
        "ask",
        docs,
        "-q",
        QUESTION,
        "--llm",
        `${server.url}#fake-model`,
        "--citations",
        "--judge",
        `${judge.url}#judge-model`,
        "--json",
      ]);
      expect(code, stderr).toBe(0);
      const { citations } = JSON.parse(stdout);
      expect(
        citations.citations.map((citation: { support: { judge: boolean } }) => citation.support.judge),
      ).toEqual([true, false]);
      expect(citations.unsupported).toEqual([{ source: 1, sentence: "It was chosen by moon penguins [1]." }]);
      expect(citations.judgeUsage.calls).toBe(2);
      expect(judge.requests).toHaveLength(2);
      const text = await runCli([
        "ask",
        docs,
        "-q",
        QUESTION,
        "--llm",
        `${server.url}#fake-model`,
        "--citations",
        "--judge",
        `${judge.url}#judge-model`,
        "--no-stream",
      ]);
      expect(text.stdout).toMatch(
        /unsupported citation \[1\] \(lexical 0\.\d\d, judge NO\): It was chosen by moon penguins/,
      );
    } finally {
      await judge.close();
    }
  });

  it("--judge without --citations is a usage error", async () => {
    const { code, stderr } = await runCli(["ask", docs, "-q", QUESTION, "--judge", "openai:gpt-4o-mini"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--judge on ask judges citations: add --citations.");
  });
});
