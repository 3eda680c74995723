// The launcher of timed-spawn.mjs: reads { command, args, options } as JSON on stdin, runs the command with
// spawnSync, and prints { ms, status, stdout, stderr } as JSON.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const { command, args, options } = JSON.parse(readFileSync(0, "utf8"));
const started = performance.now();
const result = spawnSync(command, args, {
  ...options,
  encoding: "utf8",
  maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024,
});
const ms = performance.now() - started;
if (result.error) throw result.error;
process.stdout.write(
  JSON.stringify({ ms, status: result.status, stdout: result.stdout, stderr: result.stderr }),
);
