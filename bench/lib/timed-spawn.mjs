// Wall time of a child process, taken by a small launcher process rather than by the bench itself. After the
// corpus and tree figures the bench holds a large heap, and fork() from a large process is slow: measured on
// the bench machine, `node -e 0` took 75 ms from a small parent and 182 ms from one holding 2.2 GB, a cost a
// user's shell never pays. The launcher is forked from the bench (untimed), then forks the command and times it.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const LAUNCHER = fileURLToPath(new URL("./timed-spawn-child.mjs", import.meta.url));

/**
 * Runs `command args` like `spawnSync(command, args, options)` from the launcher. Returns `{ ms, status,
 * stdout, stderr }`: `ms` is the launcher's wall time around its own spawnSync; stdout and stderr are strings.
 * `options` must be JSON (cwd, env, input, maxBuffer); stdout and stderr are always captured. With
 * `firstOutput: true` the result also has `firstOutputMs`: when the first byte on stdout arrived.
 */
export function timedSpawn(command, args, options = {}) {
  const out = execFileSync(process.execPath, [LAUNCHER], {
    input: JSON.stringify({ command, args, options }),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(out);
}
