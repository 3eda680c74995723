import { createRequire } from "node:module";

// A large index build allocates far faster than it keeps: its live heap stays near 100–250 MB while V8, left to
// itself, lets the heap grow to 3–4 times that between full collections. Indexing Debian's /usr/share/doc (3,956
// files) peaked at 990 MiB of RSS that way, and at 607 MiB with the heap grown by at most 60% (the wall time within
// the run-to-run spread: 127–137 s). The CLI asks V8 for that once a build has this much to split; the library sets
// no flag of its host's process.

/** Text a build must have to split (its files' sizes) before the CLI makes the heap grow less. */
export const LEAN_HEAP_MIN_BYTES = 8 * 1024 * 1024;
/** How much V8 may grow the heap past the live objects after a full collection, in percent. */
export const HEAP_GROWING_PERCENT = 60;

/**
 * The V8 flag a build of `bytes` to split should set, or undefined: none for a small build, or when the process was
 * started with its own `--heap-growing-percent` (in `execArgv`), which wins.
 */
export function leanHeapFlag(bytes: number, execArgv: readonly string[]): string | undefined {
  if (!(bytes >= LEAN_HEAP_MIN_BYTES)) return undefined;
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

let leaned = false;

/**
 * Sets {@link leanHeapFlag}'s flag in this process, once, before a build of `bytes` starts (worker threads started
 * after it take it too). node:v8 is loaded only then: loading it costs a few milliseconds that an ask does not pay.
 */
export function leanHeapForBuild(bytes: number): void {
  if (leaned) return;
  const flag = leanHeapFlag(bytes, process.execArgv);
  if (flag === undefined) return;
  leaned = true;
  (createRequire(import.meta.url)("node:v8") as typeof import("node:v8")).setFlagsFromString(flag);
}
