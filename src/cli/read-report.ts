import { formatReadCounts, type ReadCounts } from "../index-store/folder-index-stats.js";
import type { CliIO } from "./io.js";

/**
 * Reports the walk on stderr: the counts line (always with `always`, as `index` does; otherwise when something
 * other than an ignore rule passed a file over, or with `verbose`), then with `verbose` every skipped path and why.
 */
export function reportReadCounts(
  counts: ReadCounts,
  io: CliIO,
  { verbose, always }: { verbose: boolean; always: boolean },
): void {
  const notable = counts.skipped.some((entry) => entry.code !== "ignored");
  if (!always && !verbose && !notable) return;
  const hint = counts.skipped.length > 0 && !verbose ? " (-v lists them)" : "";
  io.stderr.write(`ragsynth: ${formatReadCounts(counts)}${hint}\n`);
  if (!verbose) return;
  for (const entry of counts.skipped)
    io.stderr.write(`ragsynth: skipped ${entry.path} (${entry.code}): ${cliReason(entry.reason)}\n`);
}

// The reader's hint names its option (maxFileBytes), which the CLI does not have.
export function cliReason(reason: string): string {
  return reason.replace(
    / is over maxFileBytes \(\d+\); raise maxFileBytes to read it/g,
    " is over the 32 MiB limit for one file; split it into smaller files to read it",
  );
}
