import { describe, expect, it } from "vitest";
import { contextFiles, fileWeights } from "./context-files.js";
import { qa } from "./extractive-fixtures.test.util.js";
import { ExtractiveLLM } from "./extractive-llm.js";

// Which retrieved file a passage comes from, and how much the query concerns that file.

const chunk = (file: string, text: string) => `file_path: ${file}\n\n${text}`;

describe("contextFiles", () => {
  it("gives chunks of one file (citation pieces, or a later chunk of a file seen before) that file's rank", () => {
    const context = [
      chunk("docs/a.md", "Source 1:\nAlpha one."),
      chunk("docs/a.md", "Source 2:\nAlpha two."),
      chunk("docs/b.md", "Source 3:\nBeta."),
      chunk("docs/a.md", "Source 4:\nAlpha three."),
    ].join("\n\n");
    const { rankOf, labels } = contextFiles(context, 0);
    const rank = (text: string) => rankOf(context.indexOf(text));
    expect([rank("Alpha one."), rank("Alpha two."), rank("Beta."), rank("Alpha three.")]).toEqual([
      0, 0, 1, 0,
    ]);
    expect([...labels.values()]).toEqual(["file_path: docs/a.md\n", "file_path: docs/b.md\n"]);
  });

  it("reads a later chunk's metadata lines as one label, its file's (a PDF chunk's `page_count` under its path)", () => {
    // Failed before: each metadata line after the first started a chunk of its own, so the text of every chunk but
    // the first was labelled `page_count: 3` alone (the file lost, two PDFs of as many pages one file).
    const context = [
      "file_path: docs/a.pdf\npage_count: 3\n\nAlpha one.",
      "file_path: docs/b.pdf\npage_count: 3\n\nBeta.",
      "file_path: docs/a.pdf\npage_count: 3\n\nAlpha two.",
    ].join("\n\n");
    const { rankOf, labels } = contextFiles(context, 0);
    const rank = (text: string) => rankOf(context.indexOf(text));
    expect([rank("Alpha one."), rank("Beta."), rank("Alpha two.")]).toEqual([0, 1, 0]);
    expect([...labels.values()]).toEqual([
      "file_path: docs/a.pdf\npage_count: 3\n",
      "file_path: docs/b.pdf\npage_count: 3\n",
    ]);
  });

  it("finds each chunk's metadata header, up to the blank line before its text", () => {
    const context = [
      "file_path: docs/a.md\ntitle: Alpha guide\n\nAlpha one.",
      "file_path: docs/b.md\n\nBeta.\ntitle: not a header",
    ].join("\n\n");
    const { inHeader } = contextFiles(context, 0);
    const at = (text: string) => inHeader(context.indexOf(text));
    expect([
      at("file_path: docs/a.md"),
      at("title: Alpha"),
      at("Alpha one."),
      at("file_path: docs/b.md"),
    ]).toEqual([true, true, false, true]);
    expect([at("Beta."), at("title: not")]).toEqual([false, false]);
  });

  it("sees one file in a context without metadata lines, and ranks from `first`", () => {
    const { rankOf, labels } = contextFiles("One.\n\nTwo.\n\nThree.", 1);
    expect([rankOf(0), rankOf(12)]).toEqual([1, 1]);
    expect(labels.size).toBe(1);
  });
});

describe("fileWeights", () => {
  const passage = (rank: number, text: string) => ({ source: 1, rank, heading: "", text });
  const labels = new Map([
    [0, "file_path: docs/bananas.md\n"],
    [1, "file_path: docs/express/History.md\n"],
  ]);

  it("weighs 0 a file the query hardly concerns, 1 the best one, and the answer so far 1", () => {
    const passages = [
      passage(0, "Bananas are yellow and the release was fixed."),
      passage(0, "Bananas grow in bunches."),
      passage(1, "4.21.1 fixed a security vulnerability in cookie parsing."),
    ];
    const weight = fileWeights(passages, labels, "Which security vulnerability was fixed in express 4.21.1?");
    expect(weight(passages[2] as (typeof passages)[number])).toBe(1);
    expect(weight(passages[0] as (typeof passages)[number])).toBe(0);
    expect(weight({ source: 0, rank: 0, heading: "", text: "x" })).toBe(1);
  });

  it("reads the file's path as words (`express/History.md` names express)", () => {
    const passages = [passage(0, "The timeout is 5 seconds."), passage(1, "The timeout is 10 seconds.")];
    const weight = fileWeights(passages, labels, "What is the express timeout?");
    expect(weight(passages[1] as (typeof passages)[number])).toBe(1);
    expect(weight(passages[0] as (typeof passages)[number])).toBeLessThan(1);
  });

  it("weighs every passage 1 with one file or no query", () => {
    const one = [passage(0, "Bananas are yellow."), passage(0, "Apples are red.")];
    expect(fileWeights(one, labels, "yellow bananas")(one[1] as (typeof one)[number])).toBe(1);
    const two = [passage(0, "Bananas are yellow."), passage(1, "Apples are red.")];
    expect(fileWeights(two, labels, "")(two[1] as (typeof two)[number])).toBe(1);
  });
});

describe("ExtractiveLLM and the retrieved files", () => {
  it("does not quote a lower-ranked file the question does not concern", async () => {
    const context = [
      chunk(
        "docs/dotenv.md",
        "Dotenv loads the .env file into process.env. Never commit the .env file to git.",
      ),
      chunk("docs/fastify.md", "Fastify reads its config file at startup. Check the git log for changes."),
    ].join("\n\n");
    const { text } = await new ExtractiveLLM({ maxSentences: 4 }).complete(
      "",
      qa("Should I commit the .env file of dotenv to git?", context),
    );
    expect(text).toContain("Never commit the .env file to git.");
    expect(text).not.toContain("Fastify");
  });

  it("ends a chunk's last section at the next chunk's metadata header: no header or other file in its quote", async () => {
    // A workbook's chunk ending on a short section, then a Markdown table of another file: the whole-section quote of
    // "# Hidden" ran on over `file_path: sheet.md` and its table, up to the next heading.
    const context = [
      chunk(
        "plan.xlsx",
        "# Budget\n\nTeam: Search; Budget: 120000; Start: 2024-01-02\nTeam: Infra; Budget: 80000; Start: 2024-03-01\n\n# Hidden\n\nsecret plan",
      ),
      chunk("sheet.md", "Team | Budget | Start\nSearch | 120000 | 2024-01-02\nInfra | 80000 | 2024-03-01"),
      chunk("talk.md", "# Roadmap\n\n- Ship the index store in Q1"),
    ].join("\n\n");
    const { text } = await new ExtractiveLLM({}).complete(
      "",
      qa("What is the budget of the Infra team and when does it start?", context),
    );
    expect(text).toContain("Team: Infra; Budget: 80000; Start: 2024-03-01");
    expect(text).not.toContain("file_path");
  });
});
