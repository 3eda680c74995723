import { basename } from "node:path";
import { formatCount, formatDuration, formatUsd } from "../util/format-numbers.js";
import { sha256Hex } from "../util/sha256.js";
import type { BatchItemError, BatchOutcome, BatchProgress } from "./types.js";

/** Token prices in USD per million; a run without either has no cost. */
export interface BatchPrices {
  input: number | undefined;
  output: number | undefined;
}

/** What a batch run did, as `ragsynth batch --json` prints it. */
export interface BatchSummary {
  backend: string;
  runId: string;
  out: string;
  total: number;
  done: number;
  failed: number;
  skipped: number;
  promptTokens: number;
  completionTokens: number;
  /** Null without prices. */
  costUsd: number | null;
  elapsedMs: number;
  /** The first 20 failures: the item's id and its error. */
  failures: Array<{ id: string; error: BatchItemError | undefined }>;
}

/** The run id when none is given: the results file's name and a hash of its absolute path. */
export function defaultRunId(out: string): string {
  const name = basename(out).replace(/[^\w.-]+/g, "_");
  return `${name}-${sha256Hex(out).slice(0, 8)}`;
}

/** The cost of the tokens at `prices`; null when neither price is known. */
export function batchCostUsd(
  { promptTokens, completionTokens }: Pick<BatchProgress, "promptTokens" | "completionTokens">,
  prices: BatchPrices,
): number | null {
  if (prices.input === undefined && prices.output === undefined) return null;
  return ((prices.input ?? 0) * promptTokens + (prices.output ?? 0) * completionTokens) / 1_000_000;
}

/** The time left, from the pace of the items finished in this run (items skipped as already done excluded). */
export function batchEtaMs(progress: BatchProgress): number | undefined {
  const finished = progress.done + progress.failed;
  const remaining = progress.total - finished - progress.skipped;
  return finished > 0 ? (progress.elapsedMs / finished) * remaining : undefined;
}

/** The counts, tokens, cost and first failures of a finished run. */
export function summarizeBatch(
  { progress, results }: BatchOutcome,
  { backend, runId, out, prices }: { backend: string; runId: string; out: string; prices: BatchPrices },
): BatchSummary {
  return {
    backend,
    runId,
    out,
    total: progress.total,
    done: progress.done,
    failed: progress.failed,
    skipped: progress.skipped,
    promptTokens: progress.promptTokens,
    completionTokens: progress.completionTokens,
    costUsd: batchCostUsd(progress, prices),
    elapsedMs: Math.round(progress.elapsedMs),
    failures: results
      .filter((result) => !result.ok)
      .slice(0, 20)
      .map((result) => ({ id: result.id, error: result.error })),
  };
}

/** The line a finished run ends with: `2 answered, 0 failed, 1 already done · 901 tokens · $0.0012 · 3.2 s → out.jsonl`. */
export function formatBatchSummary(summary: BatchSummary, shownOut: string): string {
  return (
    `${summary.done} answered, ${summary.failed} failed, ${summary.skipped} already done · ` +
    `${formatCount(summary.promptTokens + summary.completionTokens)} tokens` +
    `${summary.costUsd === null ? "" : ` · ${formatUsd(summary.costUsd)}`} · ${formatDuration(summary.elapsedMs)} → ${shownOut}`
  );
}

/** A running batch's progress detail: Redis lost (when it is), failures, items in flight, tokens and cost so far. */
export function batchProgressDetail(snapshot: BatchProgress, prices: BatchPrices): string {
  const usd = batchCostUsd(snapshot, prices);
  return (
    `${snapshot.connectionLost ? "Redis unreachable, waiting to reconnect · " : ""}` +
    `${snapshot.failed} failed · ${snapshot.inFlight} in flight · ` +
    `${formatCount(snapshot.promptTokens + snapshot.completionTokens)} tokens` +
    `${usd === null ? "" : ` · ${formatUsd(usd)}`}`
  );
}
