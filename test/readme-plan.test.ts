import { readFileSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { PLAN_ARGS, planTable, withPlanTable } from "../scripts/readme-plan.mjs";
import { runCli } from "./cli/run-cli.js";

// The chunks' token counts include their file path, so the copy sits at the same relative path, examples/docs.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-readme-plan-"));
  await cp(fileURLToPath(new URL("../examples/docs", import.meta.url)), join(dir, "examples/docs"), {
    recursive: true,
    filter: (source) => basename(source) !== ".ragsynth",
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("README's plan example", () => {
  it("is what `ragsynth plan` prints (regenerate with `npm run build && npm run readme:plan`)", async () => {
    const result = await runCli(PLAN_ARGS as string[], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(withPlanTable(readme, planTable(result.stdout))).toBe(readme);
  });
});
