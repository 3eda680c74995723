import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

// Sections of ~600 tokens: two do not fit in one 1024-token chunk, so each section is a chunk of its own.
const filler = (topic: string) =>
  Array.from(
    { length: 55 },
    (_, index) => `Sentence ${index} describes ${topic} case ${index} at length.`,
  ).join(" ");

const GUIDE = [
  "# Guide", // 1
  "",
  "This guide covers the command line.", // 3
  "",
  "## Configuration", // 5
  "",
  "### Timeouts", // 7
  "",
  `The request timeout defaults to 30 seconds. ${filler("waiting")}`, // 9
  "",
  "```sh", // 11
  "ragsynth ask docs --timeout 60",
  "```", // 13
  "",
  "### Retries", // 15
  "",
  filler("retrying"), // 17
  "",
  "## Output", // 19
  "",
  filler("printing"), // 21
].join("\n");

describe("ragsynth ask: where each source comes from", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ragsynth-locations-"));
    await writeFile(join(dir, "guide.md"), GUIDE);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("prints each source with its lines and heading path", async () => {
    const query = "What is the default request timeout, and what about retrying?";
    const { code, stdout } = await runCli(["ask", "guide.md", "--query", query], { cwd: dir });
    expect(code).toBe(0);
    const sources = stdout.split("\nSources:\n")[1] ?? "";
    expect(sources.split("\n")[0]).toMatch(
      /^ {2}\[1\] +[\d.]+ {2}guide\.md:7–13 › Guide › Configuration › Timeouts( |$)/,
    );
    expect(sources).toMatch(/\n {2}\[2\] +[\d.]+ {2}guide\.md:15–17 › Guide › Configuration › Retries( |\n)/);
  });

  it("--json carries each source's location, and the report page shows and links it", async () => {
    const report = join(dir, "run.html");
    const { code, stdout } = await runCli(
      ["ask", "guide.md", "--query", "What is the default request timeout?", "--json", "--report", report],
      { cwd: dir },
    );
    expect(code).toBe(0);
    const [first] = JSON.parse(stdout).sources;
    expect(first.location).toEqual({
      file: "guide.md",
      headingPath: ["Guide", "Configuration", "Timeouts"],
      lines: { start: 7, end: 13 },
    });
    expect(first.label).toBe("guide.md:7–13 › Guide › Configuration › Timeouts");
    const html = await readFile(report, "utf8");
    expect(html).toContain('<div class="where">guide.md:7–13 › Guide › Configuration › Timeouts</div>');
    expect(html).toMatch(/<a class="open" href="file:\/\/[^"]*\/guide\.md#L7">/);
  });
});
