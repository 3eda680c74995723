import { RagsynthError } from "../errors/ragsynth-error.js";
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

/** Skips by code: `{ binary: 2, ignored: 9 }`, most first. */
export function countSkipped(skipped: readonly SkippedPath[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of skipped) counts[entry.code] = (counts[entry.code] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(byCount));
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
    io.stderr.write(`ragsynth: skipped ${entry.path} (${entry.code}): ${cliReason(entry)}\n`);
}

/** The error when nothing was read: what was given and the first few reasons. */
export function noDocuments(paths: readonly string[], skipped: readonly SkippedPath[]): RagsynthError {
  const shown = skipped.slice(0, 3).map((entry) => `${entry.path}: ${cliReason(entry)}`);
  const passed =
    skipped.length > 0
      ? ` (${skipped.length} skipped: ${shown.join("; ")}${skipped.length > 3 ? "; …" : ""})`
      : "";
  return new RagsynthError({
    code: "document_read",
    message: `No documents to read in ${paths.join(", ")}${passed}. Point ragsynth at files or a folder of documents (-v lists what was skipped; --no-ignore and --hidden read more).`,
  });
}

// The reader's hint names its option (maxFileBytes), which the CLI does not have.
function cliReason(entry: SkippedPath): string {
  return entry.code === "too_large"
    ? `${entry.reason.replace(/ is over maxFileBytes.*$/, "")} is over the 32 MiB limit for one file; split it into smaller files to read it`
    : entry.reason;
}

function byCount([leftName, left]: [string, number], [rightName, right]: [string, number]): number {
  return right - left || (leftName < rightName ? -1 : 1);
}
