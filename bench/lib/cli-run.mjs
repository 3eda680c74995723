// One run of the built CLI (`node dist/cli/bin.js …`) as a user starts it, timed from a small launcher
// (timed-spawn.mjs): wall ms, peak RSS MB, CPU ms (user + system, every thread), the main thread's busy ms, stdout,
// and when its first byte on stdout arrived. Offline: no model configured (BM25 + extractive answerer). Shared by
// the corpus, scale and threads figures.
import { join } from "node:path";
import { ROOT_DIR } from "./libs.mjs";
import { timedSpawn } from "./timed-spawn.mjs";

export const BIN = join(ROOT_DIR, "dist", "cli", "bin.js");
// At exit: peak RSS, CPU time of every thread, and the main thread's busy time (its event loop's active time: the
// part of a build worker threads cannot take).
const RSS_HOOK = `process.on("exit",()=>{const u=process.resourceUsage();const e=performance.eventLoopUtilization();process.stderr.write("\\nbench-maxrss "+u.maxRSS+" cpu "+(u.userCPUTime+u.systemCPUTime)+" main "+Math.round(e.active)+"\\n")})`;

/** Runs `ragsynth <args>`; throws with the end of stderr when it exits non-zero. */
export function cli(args, { firstOutput = false, bin = BIN, env = {}, cwd } = {}) {
  const result = timedSpawn(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(RSS_HOOK)}`, bin, ...args],
    {
      env: { ...process.env, RAGSYNTH_LLM: "", RAGSYNTH_EMBED: "", NO_COLOR: "1", ...env },
      firstOutput,
      ...(cwd === undefined ? {} : { cwd }),
    },
  );
  const usage = /bench-maxrss (\d+) cpu (\d+) main (\d+)/.exec(result.stderr);
  const rss = Number(usage?.[1] ?? Number.NaN) / 1024;
  const cpuMs = Number(usage?.[2] ?? Number.NaN) / 1000;
  const mainBusyMs = Number(usage?.[3] ?? Number.NaN);
  if (result.status !== 0)
    throw new Error(`ragsynth ${args[0]} exited ${result.status}: ${result.stderr.slice(-400)}`);
  return {
    ms: result.ms,
    rss,
    cpuMs,
    mainBusyMs,
    firstOutputMs: result.firstOutputMs,
    stdout: result.stdout,
  };
}
