import { formatReadCounts, type ReadCounts } from "../index-store/folder-index-stats.js";
import { oneLine } from "../util/one-line.js";
import type { CliIO } from "./io.js";

/**
 * Reports the walk on stderr: the counts line (always with `always`, as `index` does; otherwise when something
 * other than an ignore rule passed a file over, or with `verbose`), then with `verbose` every skipped path and why;
 * and a note when the build's worker threads did nothing because they failed.
 */
export function reportReadCounts(
  counts: ReadCounts & { threadsFailed?: string | undefined },
  io: CliIO,
  { verbose, always }: { verbose: boolean; always: boolean },
): void {
  if (counts.threadsFailed !== undefined) {
    io.stderr.write(
      `ragsynth: note: no worker thread could read or split files (${counts.threadsFailed}), so the main thread did; --threads 0 asks for that.\n`,
    );
  }
  const notable = counts.skipped.some((entry) => entry.code !== "ignored");
  if (!always && !verbose && !notable) return;
  const hint = counts.skipped.length > 0 && !verbose ? " (-v lists them)" : "";
  io.stderr.write(`ragsynth: ${formatReadCounts(counts)}${hint}\n`);
  if (!verbose) return;
  for (const entry of counts.skipped)
    io.stderr.write(`ragsynth: skipped ${oneLine(entry.path)} (${entry.code}): ${cliReason(entry.reason)}\n`);
}

// The reader's hint names its option (maxFileBytes), which the CLI does not have.
export function cliReason(reason: string): string {
  return reason.replace(
    / is over maxFileBytes \(\d+\); raise maxFileBytes to read it/g,
    " is over the 32 MiB limit for one file; split it into smaller files to read it",
  );
}
