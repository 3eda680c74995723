import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Runs `probe` (an ES module's code, importing `./src/….ts` through tsx) in a fresh Node process from the repository
 * root, and returns the JSON of its last line of output. For what one process cannot show: V8 keeps compiled
 * scripts in memory, so a second load in the same process never reads a code cache file.
 */
export function runInFreshProcess<T>(probe: string): T {
  const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", probe], {
    cwd: root,
    encoding: "utf8",
  });
  return JSON.parse(output.trim().split("\n").at(-1) as string) as T;
}
