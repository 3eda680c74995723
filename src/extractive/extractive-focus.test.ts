import { describe, expect, it } from "vitest";
import type { LLMCallOptions } from "../llm/types.js";
import { qa } from "./extractive-fixtures.test.util.js";
import { ExtractiveLLM } from "./extractive-llm.js";

// The answer holds what answers: a value named in code beside the quoted sentence, passages of the
// best-ranked chunk, no table-of-contents lines, and a refine that keeps what the first call found.

const refine = (query_str: string, context_msg: string, existing_answer: string): LLMCallOptions => ({
  templateVariables: { query_str, context_msg, existing_answer },
  promptType: "refine",
});

const chunk = (file: string, text: string) => `file_path: ${file}\n\n${text}`;

/** The answer of an ExtractiveLLM keeping at most `maxSentences` passages. */
const answer = async (maxSentences: number, query: string, context: string) =>
  (await new ExtractiveLLM({ maxSentences }).complete("", qa(query, context))).text;

describe("ExtractiveLLM answers that hold the answer", () => {
  it("quotes a sentence with the neighbour in its paragraph that names the value in code", async () => {
    const context = [
      "Controls the maximum request body size. If this is a number, then the value is in bytes. Defaults to `'100kb'`.",
      "Bananas are yellow.",
    ].join("\n\n");
    const { text } = await new ExtractiveLLM({ maxSentences: 1 }).complete(
      "",
      qa("What is the maximum request body size?", context),
    );
    expect(text).toBe(
      "Controls the maximum request body size. If this is a number, then the value is in bytes. Defaults to `'100kb'`.",
    );
  });

  it("leaves plain prose neighbours out", async () => {
    const context = "Controls the maximum request body size. Bananas are yellow. Apples are red.";
    const { text } = await new ExtractiveLLM({ maxSentences: 1 }).complete(
      "",
      qa("What is the maximum request body size?", context),
    );
    expect(text).toBe("Controls the maximum request body size.");
  });

  it("quotes a sentence with the next one in its paragraph when that one holds a query word it lacks", async () => {
    // Text read from HTML or PDF has no code marks: the value sits in plain prose after the naming sentence.
    const context =
      "Determines the maximum number of concurrent connections to the database server. This parameter can only be set at server start. The default is typically 100 connections.\n\nThe default port is 5432.";
    const query = "What is the default maximum number of concurrent connections?";
    expect(await answer(3, query, context)).toBe(
      "Determines the maximum number of concurrent connections to the database server. This parameter can only be set at server start. The default is typically 100 connections.",
    );
    // Each prose sentence of the widened quote takes one of maxSentences' places: with 3, no room is left for
    // the other paragraph's sentence, which also matches ("default"); with 4 there is.
    expect(await answer(4, query, context)).toContain("The default port is 5432.");
  });

  it("does not widen with a next sentence that adds no query word", async () => {
    const context =
      "Determines the maximum number of concurrent connections. This parameter can only be set at server start.";
    expect(await answer(1, "What is the maximum number of concurrent connections?", context)).toBe(
      "Determines the maximum number of concurrent connections.",
    );
  });

  it("quotes a sentence that introduces a code block with the block, and the block with that sentence", async () => {
    const code = "```\ngit reset --soft HEAD^\n```";
    const context = [
      "Commits are snapshots.",
      "To undo the last commit and keep your changes, run:",
      code,
      "Bananas are yellow.",
    ].join("\n\n");
    const intro = `To undo the last commit and keep your changes, run:\n\n${code}`;
    expect(await answer(1, "How do I undo the last commit and keep my changes?", context)).toBe(intro);
    // Chosen for its own words, the block brings the sentence that says what it does.
    expect(await answer(1, "git reset soft HEAD", context)).toBe(intro);
    // A label alone in its paragraph (an HTML <dt>) introduces its example too.
    const label = "Undo a commit and redo\n\n```\n$ git commit ...\n$ git reset --soft HEAD^\n```";
    expect(await answer(1, "How do I undo a commit?", `${label}\n\nBananas are yellow.`)).toBe(label);
  });

  it("quotes a sentence ending in a colon with the list or the short paragraph it introduces", async () => {
    const list =
      "SQLite supports six date and time functions as follows:\n\n- date(time-value, modifier)\n- julianday(time-value, modifier)";
    expect(
      await answer(1, "Which date and time functions does SQLite support?", `${list}\n\nBananas are yellow.`),
    ).toBe(list);
    const paragraph =
      "These are given by the new documentclass and usepackage commands:\n\n\\documentclass[options]{class} \\usepackage[options]{packages}";
    expect(
      await answer(1, "What does the usepackage command do?", `${paragraph}\n\nBananas are yellow.`),
    ).toBe(paragraph);
    // A label without a colon introduces only code, and a list too long for one quote stays out.
    const label = "Date functions\n\n- date(time-value)";
    expect(await answer(1, "Which date functions are there?", label)).toBe("Date functions");
    const items = Array.from({ length: 25 }, (_, n) => `- date${n}(time-value, modifier, modifier)`).join(
      "\n",
    );
    const long = `SQLite supports these functions:\n\n${items}`;
    expect(await answer(1, "Which functions does SQLite support?", long)).toBe(
      "SQLite supports these functions:",
    );
  });

  it("leaves the code out after a sentence that ends its paragraph without introducing it, or when too long", async () => {
    const code = "```\ngit reset --soft HEAD^\n```";
    const ended = `To undo the last commit, use reset.\n\n${code}`;
    expect(await answer(1, "How do I undo the last commit?", ended)).toBe(
      "To undo the last commit, use reset.",
    );
    // A paragraph between the sentence and the block is what the colon introduces; the block after it is not.
    const between = `To undo the last commit, run:\n\nBananas are yellow.\n\n${code}`;
    expect(await answer(1, "How do I undo the last commit?", between)).toBe(
      "To undo the last commit, run:\n\nBananas are yellow.",
    );
    // A block too long for one quote with its sentence stays out (it is a passage of its own).
    const long = `\`\`\`\n${"echo step\n".repeat(70)}\`\`\``;
    expect(
      await answer(1, "How do I undo the last commit?", `To undo the last commit, run:\n\n${long}`),
    ).toBe("To undo the last commit, run:");
  });

  it("never quotes a chunk's metadata header, title line included", async () => {
    const context = [
      "file_path: docs/argparse.docx\ntitle: Argparse Tutorial\n\nThis tutorial is a gentle introduction to argparse.",
      "file_path: docs/other.md\ntitle: Argparse integers\n\nUse type=int to make argparse convert an argument to an integer.",
    ].join("\n\n");
    const text = await answer(5, "How does argparse make an argument an integer in the tutorial?", context);
    expect(text).toContain("type=int");
    expect(text).not.toMatch(/file_path:|title:/);
  });

  it("prefers the passage of the better-ranked chunk when two match alike", async () => {
    const longer = "The timeout option sets how long to wait for a reply from the server.";
    const shorter = "The timeout option sets how long to wait.";
    const llm = new ExtractiveLLM({ maxSentences: 1 });
    const query = "What does the timeout option set?";
    const ranked = (first: string, second: string) =>
      [chunk("docs/a.md", first), chunk("docs/b.md", second)].join("\n\n");
    // Alone, the shorter sentence scores higher (BM25 favours short passages); first in rank, the longer wins.
    expect((await llm.complete("", qa(query, `${longer}\n\n${shorter}`))).text).toBe(shorter);
    expect((await llm.complete("", qa(query, ranked(longer, shorter)))).text).toBe(longer);
    expect((await llm.complete("", qa(query, ranked(shorter, longer)))).text).toBe(shorter);
  });

  it("drops table-of-contents and badge lines, keeping list items that say something", async () => {
    const context = [
      "- [Timeout options](#timeout-options)",
      "- [Retry options](#retry-options)",
      "[![npm](https://img.shields.io/npm/v/x.svg)](https://npm.im/x)",
      "- `timeout`: the options timeout in milliseconds, see [Timeout options](#timeout-options).",
    ].join("\n");
    const { text } = await new ExtractiveLLM({ maxSentences: 3 }).complete(
      "",
      qa("timeout options", context),
    );
    expect(text).toBe(
      "- `timeout`: the options timeout in milliseconds, see [Timeout options](#timeout-options).",
    );
  });

  it("scores a lone word by its own words, not by its heading's", async () => {
    // Node's API pages: a "History" label (and its table) opens each function's section, whose heading holds the
    // question's words; the label alone is a short text of those words to BM25.
    const context = [
      "### http.createServer([options][, requestListener])",
      "History",
      "Version | Changes\nv18.0.0 | The noDelay option now defaults to true.",
      "- Returns: {http.Server}",
      "Returns a new instance of http.Server.",
      "### Class: http.Agent",
      "An Agent is responsible for managing connection persistence and reuse for HTTP clients.",
    ].join("\n\n");
    const text = await answer(3, "How do I create an HTTP server?", context);
    expect(text).not.toContain("History");
    expect(text).toContain("Returns a new instance of http.Server.");
    // Two words keep the heading's help: a terse value line under its option's name still answers.
    const option =
      "### `pluginTimeout`\n\n+ Default: `10000`\n\nEncapsulation keeps decorators inside a context.";
    expect(await answer(1, "How long may a plugin take before timeout?", option)).toBe("+ Default: `10000`");
  });

  it("a refine keeps a quote of its earlier answer that scored on its own context", async () => {
    const llm = new ExtractiveLLM({ maxSentences: 3 });
    const query = "How long may a plugin take to load?";
    const first = await llm.complete(
      "",
      qa(
        query,
        "### `pluginTimeout`\n\n+ Default: `10000`\n\nThe maximum time in milliseconds a plugin may take to load.",
      ),
    );
    expect(first.text).toContain("`10000`");
    const refined = await llm.complete(
      "",
      refine(query, "Encapsulation keeps decorators inside a plugin.", first.text),
    );
    expect(refined.text).toContain("`10000`");
    // A fresh answerer does not know where that line came from: re-split, the bare Default line scores nothing.
    const fresh = await new ExtractiveLLM({ maxSentences: 3 }).complete(
      "",
      refine(query, "Encapsulation keeps decorators inside a plugin.", first.text),
    );
    expect(fresh.text).not.toContain("`10000`");
  });
});
