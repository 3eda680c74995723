// One run of the built CLI (`node dist/cli/bin.js …`) as a user starts it, timed from a small launcher
// (timed-spawn.mjs): wall ms, peak RSS MB, CPU ms (user + system, every thread), stdout, and when its first byte
// on stdout arrived. Offline: no model
// configured (BM25 + extractive answerer). Shared by the corpus and scale figures.
import { join } from "node:path";
import { ROOT_DIR } from "./libs.mjs";
import { timedSpawn } from "./timed-spawn.mjs";

export const BIN = join(ROOT_DIR, "dist", "cli", "bin.js");
const RSS_HOOK = `process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("\\nbench-maxrss "+u.maxRSS+" cpu "+(u.userCPUTime+u.systemCPUTime)+"\\n")})`;

/** Runs `ragsynth <args>`; throws with the end of stderr when it exits non-zero. */
export function cli(args, { firstOutput = false, bin = BIN, env = {} } = {}) {
  const result = timedSpawn(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(RSS_HOOK)}`, bin, ...args],
    {
      env: { ...process.env, RAGSYNTH_LLM: "", RAGSYNTH_EMBED: "", NO_COLOR: "1", ...env },
      firstOutput,
    },
  );
  const usage = /bench-maxrss (\d+) cpu (\d+)/.exec(result.stderr);
  const rss = Number(usage?.[1] ?? Number.NaN) / 1024;
  const cpuMs = Number(usage?.[2] ?? Number.NaN) / 1000;
  if (result.status !== 0)
    throw new Error(`ragsynth ${args[0]} exited ${result.status}: ${result.stderr.slice(-400)}`);
  return { ms: result.ms, rss, cpuMs, firstOutputMs: result.firstOutputMs, stdout: result.stdout };
}
