// File names, documents and model replies are untrusted: an escape sequence in any of them must be shown by the CLI,
// never obeyed by the user's terminal (clear the screen, set the title, write the clipboard, write over an answer's
// Sources, reorder a file name). Every command writes through one terminal sink (src/cli/terminal-text.ts).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, runCli } from "../cli/run-cli.js";

const ESC = "\u001b";
// What a terminal obeys rather than shows (written out here, not taken from the sink's module): C0 controls but
// tab, line feed and form feed, a carriage return not before a line feed, DEL, C1, bidirectional overrides.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const OBEYED = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

const COLOURED_NAME = `kumquat${ESC}[31mRED${ESC}[0m.md`;
const REVERSED_NAME = "invoice\u202efdp.md";
const EMPTY_NAME = `empty${ESC}[2J.md`;
// A name that would print a line of its own under the sources, looking like one more.
const FORGING_NAME = "kumquat notes.md\n  [9]  9.999  official-policy.md:1  Always pass --kumquat";

let home: string;
let docs: string;
let server: FakeOpenAIServer;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "ragsynth-escapes-"));
  docs = join(home, "docs");
  await mkdir(docs);
  await writeFile(
    join(docs, COLOURED_NAME),
    `# Kumquat ${ESC}]0;pwned\u0007guide\n\nThe kumquat flag is --kumquat. ${ESC}[2J\r[1] forged.md \u009b2J\n`,
  );
  await writeFile(join(docs, REVERSED_NAME), "Kumquat invoices are paid monthly with the kumquat flag.\n");
  await writeFile(join(docs, EMPTY_NAME), "");
  await writeFile(join(docs, FORGING_NAME), "Kumquat notes.\n");
  server = await startFakeOpenAIServer({
    handler: () => ({ deltas: ["The kumquat flag ", `${ESC}[2J`, "is\r--kumquat", "\u009b31m."] }),
  });
});

afterAll(async () => {
  await server?.close();
  await rm(home, { recursive: true, force: true });
});

function expectShownNotObeyed({ stdout, stderr }: CliResult) {
  expect(stdout).not.toMatch(OBEYED);
  expect(stderr).not.toMatch(OBEYED);
}

describe("escape sequences from files and replies reach the terminal as text", () => {
  it("in an offline answer, its sources and the list of skipped files", async () => {
    const result = await runCli(["ask", docs, "-q", "What is the kumquat flag?", "--no-stream", "-v"]);
    expect(result.code, result.stderr).toBe(0);
    expectShownNotObeyed(result);
    // Shown, where they were: the document's clear-screen and C1 CSI (its carriage return was read as a line end),
    // its heading's title sequence, the file names.
    expect(result.stdout).toContain("--kumquat. \\u001b[2J\n[1] forged.md \\u009b2J");
    expect(result.stdout).toContain("Kumquat \\u001b]0;pwned\\u0007guide");
    expect(result.stdout).toContain("kumquat\\u001b[31mRED\\u001b[0m.md");
    expect(result.stdout).toContain("invoice\\u202efdp.md");
    expect(result.stderr).toContain("empty\\u001b[2J.md (empty)");
    // Each source on its own line, the forging name's line break shown: three files, three source lines.
    const sources = result.stdout.slice(result.stdout.indexOf("Sources:")).split("\n");
    expect(sources.filter((line) => /^ {2}\[\d\]/.test(line))).toHaveLength(3);
    expect(result.stdout).toContain("kumquat notes.md\\u000a  [9]  9.999  official-policy.md:1");
  });

  it("in a streamed model reply", async () => {
    const result = await runCli([
      "ask",
      docs,
      "-q",
      "What is the kumquat flag?",
      "--llm",
      `${server.url}#fake-model`,
      "--stream",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expectShownNotObeyed(result);
    expect(result.stdout).toContain("The kumquat flag \\u001b[2Jis\\u000d--kumquat\\u009b31m.");
  });

  it("in --json, whose values are kept: the names parse back to the files' own", async () => {
    const result = await runCli(["ask", docs, "-q", "What is the kumquat flag?", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    expectShownNotObeyed(result);
    const files = (
      JSON.parse(result.stdout) as { sources: Array<{ metadata: { file_name: string } }> }
    ).sources.map((source) => source.metadata.file_name);
    expect(files).toContain(COLOURED_NAME);
    expect(files).toContain(REVERSED_NAME);
  });

  it("in an error naming a path", async () => {
    const result = await runCli(["ask", join(home, `missing${ESC}]0;pwned\u0007`), "-q", "x"]);
    expect(result.code).toBe(2);
    expectShownNotObeyed(result);
    expect(result.stderr).toContain("missing\\u001b]0;pwned\\u0007");
  });
});
