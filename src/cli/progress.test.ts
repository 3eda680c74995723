import { describe, expect, it } from "vitest";
import { createProgress } from "./progress.js";

/** The last line drawn for 50/100 after 10 s, with the given ETA from the caller (drawn by the 80 ms timer). */
async function lineAt50(options: { etaMs: number } | undefined): Promise<string> {
  const written: string[] = [];
  let clock = 0;
  const progress = createProgress({
    enabled: true,
    sink: { write: (text) => written.push(text) },
    columns: 200,
    now: () => clock,
  });
  progress.start("Batch", 100);
  clock = 10_000;
  progress.update(50, "0 failed · 3 in flight", options);
  await new Promise((resolve) => setTimeout(resolve, 200));
  progress.clear();
  return written.filter((text) => text.includes("50/100")).at(-1) ?? "";
}

describe("the progress line", () => {
  it("shows one ETA, the caller's when given (a batch that skipped finished items knows better)", async () => {
    const line = await lineAt50({ etaMs: 42_000 });
    expect(line.match(/ETA/g)).toHaveLength(1);
    expect(line).toContain("ETA 42s");
  });

  it("otherwise its own, from done/total: 50 in 10 s leaves 10 s", async () => {
    const line = await lineAt50(undefined);
    expect(line.match(/ETA/g)).toHaveLength(1);
    expect(line).toContain("ETA 10s");
  });
});
