import { countSkipped } from "../index-store/folder-index.js";
import type { SkippedPath } from "../reader/index.js";
import { formatCount } from "./format.js";
import type { CliIO } from "./io.js";

/** What the walk read and passed over, as `index`/`ask`/`plan` report it. */
export interface ReadCounts {
  /** Documents read (or listed unchanged), by format. */
  formats: Record<string, number>;
  /** Files and folders passed over, with the reason. */
  skipped: readonly SkippedPath[];
}

/**
 * `read 412 files (html 120, pdf 80, markdown 200) · skipped 31 (binary 20, ignored 9, encrypted 2)`: one line,
 * formats and reasons most first.
 */
export function formatReadCounts({ formats, skipped }: ReadCounts): string {
  const read = Object.values(formats).reduce((sum, count) => sum + count, 0);
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort(byCount)
      .map(([name, count]) => `${name} ${formatCount(count)}`)
      .join(", ");
  const readPart = `read ${formatCount(read)} file${read === 1 ? "" : "s"}${read > 0 ? ` (${list(formats)})` : ""}`;
  return skipped.length === 0
    ? readPart
    : `${readPart} · skipped ${formatCount(skipped.length)} (${list(countSkipped(skipped))})`;
}

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

function byCount([leftName, left]: [string, number], [rightName, right]: [string, number]): number {
  return right - left || (leftName < rightName ? -1 : 1);
}
