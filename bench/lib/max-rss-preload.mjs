// Loaded with `node --import` into a child the bench measures: at exit, writes the process's peak resident set size
// (kB, from getrusage) to $RAGSYNTH_BENCH_RSS_FILE, which the bench reads after the child has ended.
import { writeFileSync } from "node:fs";

const file = process.env.RAGSYNTH_BENCH_RSS_FILE;
if (file) process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
