import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LLMError } from "../../errors/llm-error.js";
import { createEventLog } from "../../events/event-log.js";
import { TextNode } from "../../schema/text-node.js";
import { recordRetryWaits, writeAskReport, writePlanReport } from "./write-page.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-write-page-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SECRET = "sk-write-page-SECRET-0123456789";
const redact = (text: string) => text.replaceAll(SECRET, "[REDACTED]");

describe("the trace page's writers", () => {
  it("write an ask's page with its sources and retry waits, redacted", async () => {
    const log = createEventLog();
    const retries = recordRetryWaits(log);
    retries.onRetry({
      attempt: 1,
      delayMs: 1500.4,
      error: new LLMError({ code: "llm_rate_limit", message: "slow down", status: 429 }),
    });
    expect(retries.waits).toEqual([expect.objectContaining({ delayMs: 1500, reason: "429 llm_rate_limit" })]);
    const path = join(dir, "trace.html");
    const node = new TextNode({ id: "n1", text: `Quoted ${SECRET}.`, metadata: { file_path: "docs/a.md" } });
    await writeAskReport(path, {
      redact,
      log,
      waits: retries.waits,
      response: { response: "An answer.", sourceNodes: [{ node, score: 0.5 }] } as never,
      query: "What?",
      model: "mock",
      contextWindow: 4096,
      numOutput: 256,
    });
    const page = await readFile(path, "utf8");
    expect(page).toContain("docs/a.md");
    expect(page).toContain("[REDACTED]");
    expect(page).not.toContain(SECRET);
  });

  it("write a plan's page with each mode, a failing mode marked", async () => {
    const path = join(dir, "plan.html");
    const range = { min: 1, max: 1 };
    await writePlanReport(path, {
      query: "What?",
      model: "mock",
      contextWindow: 4096,
      numOutput: 256,
      chunks: [{ name: "docs/a.md", tokens: 120 }],
      plans: [
        {
          mode: "compact",
          llmCalls: range,
          promptTokens: { min: 300, max: 300 },
          scenarios: [{ error: new Error("does not fit") }],
        },
      ] as never,
    });
    const page = await readFile(path, "utf8");
    expect(page).toContain("compact");
    expect(page).toContain("fails: does not fit");
  });
});
