import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli } from "./run-cli.js";

let docs: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ docs, cleanup } = await copyExampleDocs());
  // One file shipped in three places, as Debian ships a library's changelog in each of its packages.
  for (const copy of ["vendor-a", "vendor-b"]) {
    await mkdir(join(docs, copy));
    await copyFile(join(docs, "token-budget.md"), join(docs, copy, "token-budget.md"));
  }
});
afterEach(() => cleanup());

describe("ragsynth ask: copies of a file", () => {
  it("fills one source slot with a text found in several files, naming the copies", async () => {
    const question = "How is the available context computed from the context window?";
    const json = await runCli(["ask", docs, "-q", question, "--json", "--top-k", "4"]);
    expect(json.code, json.stderr).toBe(0);
    const sources = JSON.parse(json.stdout).sources as {
      file: string;
      text: string;
      metadata: Record<string, unknown>;
    }[];
    expect(sources).toHaveLength(4);
    expect(new Set(sources.map((source) => source.text)).size).toBe(4);
    const budget = sources.filter((source) => source.file.endsWith("token-budget.md"));
    expect(budget.length).toBeGreaterThan(0);
    for (const source of budget) {
      const copies = source.metadata.same_text_in as string[];
      expect(copies).toHaveLength(2);
      expect([source.file, ...copies].map((file) => file.replace(docs, "")).sort()).toEqual([
        "/token-budget.md",
        "/vendor-a/token-budget.md",
        "/vendor-b/token-budget.md",
      ]);
    }

    const human = await runCli(["ask", docs, "-q", question, "--top-k", "4", "--no-stream"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/token-budget\.md:\d+–\d+.* \(\+2 copies\)/);
  });
});
