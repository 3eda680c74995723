import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hideUrlPasswords } from "../errors/scrub-secrets.js";
import { helpText } from "./help.js";

describe("--help and the README tell a new user what they need", () => {
  it("--help names RAGSYNTH_API_KEY, which the CLI reads before OPENAI_API_KEY", () => {
    for (const topic of [undefined, "ask"] as const) {
      expect(helpText(topic, "0.0.0")).toMatch(/RAGSYNTH_API_KEY .*wins over OPENAI_API_KEY/);
    }
  });

  it("--help holds nothing the output's redaction would change (an example URL's password printed as [REDACTED])", () => {
    for (const topic of [undefined, "ask", "plan", "index", "batch", "worker", "eval"] as const) {
      const text = helpText(topic, "0.0.0");
      expect(hideUrlPasswords(text), topic).toBe(text);
    }
    expect(helpText("ask", "0.0.0")).toContain("postgres://user@host/db?schema=name");
  });

  it("--help says that --similarity-cutoff compares BM25 scores in lexical mode, not a cosine", () => {
    const line = helpText("ask", "0.0.0")
      .split("\n")
      .find((text) => text.includes("--similarity-cutoff"));
    expect(line).toMatch(/BM25 scores in lexical mode .*not 0–1/);
  });

  it("the README names RAGSYNTH_API_KEY and shows the package.json/tsconfig lines an ESM-only package needs", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    expect(readme).toMatch(/RAGSYNTH_API_KEY/);
    expect(readme).toMatch(/\*\*ESM-only\*\*/);
    expect(readme).toContain('{ "type": "module" }');
    expect(readme).toMatch(/"module": "NodeNext"/);
  });
});

describe("--concurrency in batch and worker help", () => {
  it("is described once, and the same way as the summary (no adaptive model-call default there)", () => {
    for (const [topic, meaning] of [
      ["batch", /Questions answered at once.*default 4/],
      ["worker", /Jobs taken at once.*default 4/],
    ] as const) {
      const text = helpText(topic, "0.0.0");
      const lines = text.split("\n").filter((line) => /^ +--concurrency /.test(line));
      expect(lines, text).toHaveLength(1);
      expect(lines[0]).toMatch(meaning);
      expect(text).not.toMatch(/adaptive/);
    }
  });
});
