// The launcher of timed-spawn.mjs: reads { command, args, options } as JSON on stdin, runs the command, and prints
// { ms, status, stdout, stderr } as JSON; with `options.firstOutput`, also `firstOutputMs`, when the command's
// first byte on stdout arrived (the command is then run with spawn instead of spawnSync).
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const { command, args, options } = JSON.parse(readFileSync(0, "utf8"));
const { firstOutput = false, ...spawnOptions } = options;
const report = (result) => process.stdout.write(JSON.stringify(result));
const started = performance.now();
if (firstOutput) {
  const { input, maxBuffer: _maxBuffer, ...rest } = spawnOptions;
  const child = spawn(command, args, { ...rest, stdio: ["pipe", "pipe", "pipe"] });
  let firstOutputMs;
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    firstOutputMs ??= performance.now() - started;
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  child.on("error", (error) => {
    throw error;
  });
  child.on("close", (status) =>
    report({ ms: performance.now() - started, firstOutputMs, status, stdout, stderr }),
  );
  child.stdin.end(input ?? "");
} else {
  const result = spawnSync(command, args, {
    ...spawnOptions,
    encoding: "utf8",
    maxBuffer: spawnOptions.maxBuffer ?? 64 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  if (result.error) throw result.error;
  report({ ms, status: result.status, stdout: result.stdout, stderr: result.stderr });
}
