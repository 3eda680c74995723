import type { SkippedPath } from "../reader/index.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import { displayPath } from "../util/display-path.js";
import { formatCount, formatDuration, plural } from "../util/format-numbers.js";
import type { IndexBuildStats } from "./build-index-options.js";

// What opening a folder's index read and built, and how it is told to people: the counts `index`, `ask`, `plan`
// and `eval` print.

/** What opening a folder's index found and cost. */
export interface FolderIndexStats {
  /** Absolute path of the cache folder, or the PostgreSQL URL without its password. */
  cacheDir: string;
  /** Documents read. */
  files: number;
  /** Documents read (or listed unchanged), by format: `{ markdown: 12, text: 3 }`. */
  formats: Record<string, number>;
  /** Files and folders passed over, with the reason. */
  skipped: SkippedPath[];
  /** `skipped` counted by reason: `{ binary: 2, ignored: 9 }`. */
  skippedCounts: Record<string, number>;
  chunks: number;
  /** Texts sent to the embedding model on this run (0 when everything came from the cache). */
  embedded: number;
  /** Chunks whose embedding came from the cache. */
  reused: number;
  /** Documents by how they compare with the cached index. */
  sources: IndexBuildStats["sources"];
  /** Worker threads that parsed and split the files read (0: all in the main thread, or nothing to read). */
  threads: number;
  /** `IndexBuildStats.threadsFailed`: why the threads started did nothing. */
  threadsFailed?: string | undefined;
  /**
   * Set when the index answered as it is, its files neither listed nor read: asked to (`refresh: false`, the CLI's
   * `--no-refresh`), or because another live process holds its build lease (`whileAnotherBuilds: "answer-as-is"`):
   * then what that build has committed so far, without the files it has not reached or edits since.
   */
  asIs?: AsIsIndex | undefined;
  /**
   * Set when the folder was not walked: every folder and file walked when the index was last found up to date kept
   * its modification time, so that listing was used again (a cache folder's `listing.json`). `relisted`: files whose
   * times changed, listed again one by one. `rowsRead: false`: the store's rows of files were not read either (their
   * version was the one remembered), and the files listed again were built alone; absent when they were read and
   * compared.
   */
  remembered?: { relisted: number; rowsRead?: false } | undefined;
  /** Time spent waiting for another process's build of the same index before this one (`whileAnotherBuilds: "wait"`). */
  waitedMs?: number | undefined;
  /** The whole run, a wait included. */
  durationMs: number;
}

/** Why an index answered as it is (see {@link FolderIndexStats.asIs}). */
export type AsIsIndex =
  | { reason: "no-refresh" }
  | {
      reason: "another-build";
      /** The building process: its pid, host and when it started. */
      builder: { pid: number; host: string; startedAt: string };
    };

/** What the walk read and passed over. */
export interface ReadCounts {
  /** Documents read (or listed unchanged), by format. */
  formats: Record<string, number>;
  /** Files and folders passed over, with the reason. */
  skipped: readonly SkippedPath[];
}

/**
 * A listed folder's {@link FolderIndexStats}: what the listing found (`files`, their `formats`, what it `skipped`) and
 * what the build did (`build`), in the cache folder `cacheDir` (as shown), since `started` (`performance.now()`).
 */
export function listedFolderStats(
  build: IndexBuildStats,
  {
    cacheDir,
    files,
    formats,
    skipped,
    remembered,
    started,
  }: Pick<FolderIndexStats, "cacheDir" | "files" | "formats" | "skipped" | "remembered"> & {
    started: number;
  },
): FolderIndexStats {
  return {
    cacheDir,
    files,
    formats,
    skipped,
    skippedCounts: countSkipped(skipped),
    chunks: build.chunks,
    embedded: build.embedded,
    reused: build.reused,
    sources: build.sources,
    threads: build.threads ?? 0,
    ...(build.threadsFailed === undefined ? {} : { threadsFailed: build.threadsFailed }),
    ...(remembered ? { remembered } : {}),
    durationMs: performance.now() - started,
  };
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

/** "Indexed 6 files (1 changed, 5 unchanged): 8 chunks, 2 embedded, 6 reused, in 0.31 s · cache … · embedding model". */
export function indexSummary(stats: FolderIndexStats, embedderId: string, cwd: string): string {
  const { added, changed, unchanged, removed } = stats.sources;
  const changes = [
    changed.length > 0 ? `${formatCount(changed.length)} changed` : "",
    unchanged.length > 0 && unchanged.length < stats.files
      ? `${formatCount(unchanged.length)} unchanged`
      : "",
    // Every file new is a first index, unless files went too (the same files under other names, say).
    added.length > 0 && (added.length < stats.files || removed.length > 0)
      ? `${formatCount(added.length)} new`
      : "",
    removed.length > 0 ? `${formatCount(removed.length)} removed` : "",
  ].filter(Boolean);
  return (
    `Indexed ${plural(stats.files, "file")}${changes.length > 0 ? ` (${changes.join(", ")})` : ""}: ` +
    `${plural(stats.chunks, "chunk")}, ${stats.embedded + stats.reused > 0 ? `${formatCount(stats.embedded)} embedded, ${formatCount(stats.reused)} reused, ` : ""}in ${formatDuration(stats.durationMs)}${stats.threads > 0 ? ` (parsed and split in ${plural(stats.threads, "thread")})` : ""}${stats.waitedMs === undefined ? "" : `, ${formatDuration(stats.waitedMs)} of it waiting for another build`}` +
    ` · cache ${isPostgresUrl(stats.cacheDir) ? stats.cacheDir : displayPath(stats.cacheDir, cwd)} · ${embedderId}`
  );
}

/** Most first; a tie in name order. */
function byCount([leftName, left]: [string, number], [rightName, right]: [string, number]): number {
  return right - left || (leftName < rightName ? -1 : 1);
}
