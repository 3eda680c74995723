import { describe, expect, it } from "vitest";
import { qa } from "./extractive-fixtures.test.util.js";
import { ExtractiveLLM } from "./extractive-llm.js";
import { splitPassages } from "./passages.js";

// Definition items read as text (a man page's `.TP` items): a paragraph that opens with the option or key it defines.

describe("splitPassages and definition terms", () => {
  it("finds the options or configuration key a paragraph opens with, for each of its sentences", () => {
    const text = [
      "## OPTIONS",
      "-n, --line-number Prefix the line number to matching lines.",
      "-A <num>, --after-context <num> Show <num> trailing lines. Place -- between groups.",
      "gc.pruneExpire When git gc is run, it prunes. Override it here.",
      "Plain prose names no term. Nor does this.",
    ].join("\n\n");
    const terms = splitPassages(text).map((passage) => [passage.text, passage.term]);
    expect(terms).toEqual([
      ["-n, --line-number Prefix the line number to matching lines.", "-n, --line-number"],
      ["-A <num>, --after-context <num> Show <num> trailing lines.", "-A <num>, --after-context <num>"],
      ["Place -- between groups.", "-A <num>, --after-context <num>"],
      ["gc.pruneExpire When git gc is run, it prunes.", "gc.pruneExpire"],
      ["Override it here.", "gc.pruneExpire"],
      ["Plain prose names no term.", ""],
      ["Nor does this.", ""],
    ]);
  });
});

describe("ExtractiveLLM and definition items", () => {
  // Fails on the answerer before definition terms: it quoted the third sentence without the one naming the key.
  it("quotes a later sentence of an item with the sentence that names its term", async () => {
    const context = [
      "## CONFIGURATION",
      "gc.pruneExpire When git gc is run, it will call prune --expire 2.weeks.ago. Override the grace period with this config variable. The value now may be used to disable this grace period and always prune unreachable objects immediately. This feature helps prevent corruption when git gc runs concurrently with another process.",
    ].join("\n\n");
    const { text } = await new ExtractiveLLM({ maxSentences: 1 }).complete(
      "",
      qa("How do I disable the grace period so that unreachable objects are pruned immediately?", context),
    );
    expect(text).toContain("always prune unreachable objects immediately.");
    expect(text).toContain("gc.pruneExpire When git gc is run");
  });
});
