import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, TEST_API_KEY } from "./run-cli.js";

// `ragsynth batch --citations`: every result line carries its citations, checked as `ask --citations` checks them.
const ANSWER = "The default response mode is compact [1]. It was chosen by moon penguins [1]. See also [99].";
let server: FakeOpenAIServer;
let corpus: Awaited<ReturnType<typeof copyExampleDocs>>;
let questions: string;

async function results(path: string) {
  return (await readFile(path, "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

beforeAll(async () => {
  server = await startFakeOpenAIServer({ handler: () => ANSWER });
  corpus = await copyExampleDocs();
  expect((await runCli(["index", corpus.docs])).code).toBe(0);
  questions = join(corpus.dir, "questions.jsonl");
  const lines = [
    "What is the default response mode?",
    "How does refine work?",
    "What is tree_summarize?",
  ].map((query, index) => JSON.stringify({ id: `q${index}`, query }));
  await writeFile(questions, `${lines.join("\n")}\n`);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await corpus?.cleanup();
});

function batch(out: string, ...extra: string[]) {
  return ["batch", questions, "--index", join(corpus.docs, ".ragsynth"), "--out", out, ...extra];
}

describe("ragsynth batch --citations", () => {
  it("with a model: invalid markers removed and reported, unsupported flagged, in every result line", async () => {
    const out = join(corpus.dir, "cited.jsonl");
    const env = { OPENAI_API_KEY: TEST_API_KEY };
    const { code, stderr } = await runCli(batch(out, "--llm", `${server.url}#fake`, "--citations"), { env });
    expect(code, stderr).toBe(0);
    const lines = await results(out);
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line.ok).toBe(true);
      const { answer, citations } = line.value;
      expect(answer).toBe(
        "The default response mode is compact [1]. It was chosen by moon penguins [1]. See also.",
      );
      expect(citations.sources.length).toBeGreaterThan(0);
      expect(citations.sources[0]).toMatchObject({ number: 1, location: { filePath: expect.any(String) } });
      expect(citations.invalid).toEqual([expect.objectContaining({ marker: "[99]", numbers: [99] })]);
      expect(citations.unsupported).toEqual([{ source: 1, sentence: "It was chosen by moon penguins [1]." }]);
      expect(citations.citations).toHaveLength(2);
      expect(citations.uncited.map((sentence: { sentence: string }) => sentence.sentence)).toEqual([
        "See also.",
      ]);
    }
    // The model was asked with the citation prompt and the numbered pieces.
    expect(JSON.stringify(server.requests[0]?.body)).toContain("Source 1:");
  });

  it("offline: every answer cites the pieces its quotes come from; without the flag no citations", async () => {
    const out = join(corpus.dir, "offline.jsonl");
    const { code, stderr } = await runCli(batch(out, "--citations"));
    expect(code, stderr).toBe(0);
    for (const line of await results(out)) {
      expect(line.ok).toBe(true);
      const { answer, citations } = line.value;
      expect(answer).toMatch(/\[\d+\]/);
      expect(citations.citations.length).toBeGreaterThan(0);
      expect(citations.invalid).toEqual([]);
      for (const citation of citations.citations) {
        const source = citations.sources[citation.source - 1];
        expect(source.number).toBe(citation.source);
      }
    }
    const plain = join(corpus.dir, "plain.jsonl");
    expect((await runCli(batch(plain))).code).toBe(0);
    for (const line of await results(plain)) expect(line.value).not.toHaveProperty("citations");
  });
});
