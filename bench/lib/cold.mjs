// Cold samples: each one is a fresh Node process (what a CLI user or a serverless function meets), so the
// first call pays for loading rank tables and meeting every piece for the first time. The parent writes the
// inputs to a file once; each child imports the figure module, runs one of its `coldTasks` and prints JSON.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./cold-child.mjs", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "ragsynth-bench-cold-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
let files = 0;

/** Writes `value` as JSON to a scratch file (removed when the bench exits) and returns its path. */
export function inputFile(value) {
  const file = join(scratch, `input-${files++}.json`);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

/**
 * Runs `coldTasks[task](args)` of the module at `moduleUrl` in a fresh process; resolves with what it returns
 * (by convention `{ ms, ... }`: the first call's time). `args` is JSON; pass big inputs as an {@link inputFile}.
 */
export function coldSample(moduleUrl, task, args = {}) {
  const out = execFileSync(process.execPath, ["--expose-gc", CHILD, moduleUrl, task, JSON.stringify(args)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.trim().split("\n").at(-1));
}
