import { readFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import {
  type BatchOutcome,
  type BatchProgress,
  type BatchRunner,
  createBullMQRunner,
  createEmbeddedRunner,
  FileCallCache,
  getBatchStatus,
  parseBatchItems,
} from "../batch/index.js";
import { writeResultsFile } from "../batch/results-file.js";
import { stripUrlCredentials } from "../errors/scrub-secrets.js";
import { sha256Hex } from "../util/sha256.js";
import { createCliProcessors, questionRunConfig } from "./batch-processors.js";
import { formatCount, formatDuration, formatUsd } from "./format.js";
import type { CommandContext } from "./io.js";
import type { BatchOptions } from "./parse-batch-command.js";
import { createProgress } from "./progress.js";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "./usage-error.js";

/**
 * `ragsynth batch`: answers every question of a JSONL into `--out`, in-process (resumable from `--out`) or,
 * with `--redis`, as BullMQ jobs for `ragsynth worker`s. Ctrl-C stops the embedded run (finished answers
 * stay in `--out`) or, with Redis, only this submitter: the jobs keep running. `--status` shows the queue.
 */
export async function runBatch(options: BatchOptions, { io, signal }: CommandContext): Promise<number> {
  if (options.status) return showStatus(options, { io, signal });
  const inputPath = resolve(io.cwd, options.input as string);
  let text: string;
  try {
    text = await readFile(inputPath, "utf8");
  } catch {
    throw new UsageError(
      `Cannot read ${options.input}.`,
      'Give a JSONL file with one {"id": …, "query": …} per line.',
    );
  }
  const items = parseBatchItems(text, { require: ["query"] });
  const out = resolve(io.cwd, options.out as string);
  const runId = options.runId ?? defaultRunId(out);
  const config = questionRunConfig(options, io.cwd);
  let runner: BatchRunner;
  if (options.redis) {
    runner = createBullMQRunner({
      redisUrl: options.redis,
      ...(options.queue ? { queueName: options.queue } : {}),
      attempts: options.attempts,
      ...(options.requestsPerMinute ? { requestsPerMinute: options.requestsPerMinute } : {}),
      ...(options.tokensPerMinute ? { tokensPerMinute: options.tokensPerMinute } : {}),
    });
  } else {
    const store = await FileCallCache.open(resolve(io.cwd, options.callCache ?? `${out}.calls.jsonl`));
    runner = createEmbeddedRunner({
      processors: createCliProcessors({ env: io.env, store }).processors,
      out,
      concurrency: options.concurrency,
      attempts: options.attempts,
    });
  }

  const progress = createProgress({
    enabled: io.stderrIsTTY && !options.json,
    sink: io.stderr,
    columns: io.columns,
  });
  progress.start(`Batch (${runner.backend})`, items.length);
  const onProgress = (snapshot: BatchProgress) =>
    progress.update(snapshot.done + snapshot.failed + snapshot.skipped, progressDetail(snapshot, options));
  let outcome: BatchOutcome;
  try {
    outcome = await runner.run({ runId, kind: "question", config, items, signal, onProgress });
  } catch (error) {
    progress.clear();
    if (signal.aborted && options.redis) {
      io.stderr.write(
        `ragsynth: stopped waiting; the jobs of run ${runId} keep running on the workers. ` +
          `See them with ragsynth batch --status --redis ${stripUrlCredentials(options.redis)}, ` +
          "and collect the answers by running the same command again.\n",
      );
    }
    throw error;
  }
  progress.clear();
  if (options.redis) await writeResultsFile(out, outcome.results);
  const summary = summarize(outcome, options, runner.backend, runId, out);
  if (options.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else {
    io.stdout.write(
      `${summary.done} answered, ${summary.failed} failed, ${summary.skipped} already done · ` +
        `${formatCount(summary.promptTokens + summary.completionTokens)} tokens` +
        `${summary.costUsd === null ? "" : ` · ${formatUsd(summary.costUsd)}`} · ${formatDuration(summary.elapsedMs)} → ${options.out}\n`,
    );
  }
  return outcome.progress.failed > 0 ? EXIT_FAILURE : EXIT_OK;
}

/** The run id when none is given: the output file's name and a hash of its absolute path. */
function defaultRunId(out: string): string {
  const name = basename(out).replace(/[^\w.-]+/g, "_");
  return `${name}-${sha256Hex(out).slice(0, 8)}`;
}

function cost(promptTokens: number, completionTokens: number, options: BatchOptions): number | null {
  if (options.priceIn === undefined && options.priceOut === undefined) return null;
  return ((options.priceIn ?? 0) * promptTokens + (options.priceOut ?? 0) * completionTokens) / 1_000_000;
}

function progressDetail(snapshot: BatchProgress, options: BatchOptions): string {
  const finished = snapshot.done + snapshot.failed;
  const remaining = snapshot.total - finished - snapshot.skipped;
  const eta = finished > 0 ? ` · ETA ${formatDuration((snapshot.elapsedMs / finished) * remaining)}` : "";
  const usd = cost(snapshot.promptTokens, snapshot.completionTokens, options);
  return (
    `${snapshot.failed} failed · ${snapshot.inFlight} in flight · ` +
    `${formatCount(snapshot.promptTokens + snapshot.completionTokens)} tokens` +
    `${usd === null ? "" : ` · ${formatUsd(usd)}`}${eta}`
  );
}

function summarize(
  outcome: BatchOutcome,
  options: BatchOptions,
  backend: string,
  runId: string,
  out: string,
) {
  const { progress } = outcome;
  return {
    command: "batch",
    backend,
    runId,
    out,
    total: progress.total,
    done: progress.done,
    failed: progress.failed,
    skipped: progress.skipped,
    promptTokens: progress.promptTokens,
    completionTokens: progress.completionTokens,
    costUsd: cost(progress.promptTokens, progress.completionTokens, options),
    elapsedMs: Math.round(progress.elapsedMs),
    failures: outcome.results
      .filter((result) => !result.ok)
      .slice(0, 20)
      .map((result) => ({ id: result.id, error: result.error })),
  };
}

async function showStatus(options: BatchOptions, { io }: CommandContext): Promise<number> {
  const status = await getBatchStatus({
    redisUrl: options.redis as string,
    ...(options.queue ? { queueName: options.queue } : {}),
  });
  if (options.json) io.stdout.write(`${JSON.stringify({ command: "batch-status", ...status }, null, 2)}\n`);
  else {
    io.stdout.write(
      `queue ${status.queueName}: ${status.waiting} waiting, ${status.active} active, ${status.delayed} delayed, ` +
        `${status.completed} done, ${status.failed} failed · ${status.workers} worker connection${status.workers === 1 ? "" : "s"}\n`,
    );
  }
  return EXIT_OK;
}
