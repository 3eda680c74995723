import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { formatBatchStatus } from "../batch/batch-status.js";
import {
  batchEtaMs,
  batchProgressDetail,
  defaultRunId,
  formatBatchSummary,
  summarizeBatch,
} from "../batch/batch-summary.js";
import { CACHE_HMAC_KEY_ENV } from "../batch/call-cache-seal.js";
import { type BatchOutcome, type BatchProgress, checkRedis, getBatchStatus } from "../batch/index.js";
import { writeResultsFile } from "../batch/results-file.js";
import { hideUrlPassword, urlCredentials } from "../errors/scrub-secrets.js";
import { checkStoredIndex } from "../index-store/store-index.js";
import { hasStoreAt, storeLabel } from "../index-store/store-location.js";
import type { BatchTrust } from "../question-run/batch-trust.js";
import { createQuestionRunner, readQuestionItems } from "../question-run/question-batch.js";
import { questionRunConfig } from "../question-run/question-run-config.js";
import type { BatchOptions } from "./command-options.js";
import { type CommandContext, writeJSON } from "./io.js";
import { questionProcessors } from "./models.js";
import { createProgress } from "./progress.js";
import { refuseOutputOverInput } from "./refuse-output-over-input.js";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "./usage-error.js";

/**
 * `ragsynth batch`: answers every question of a JSONL into `--out`, in-process (resumable from `--out`) or,
 * with `--redis`, as BullMQ jobs for `ragsynth worker`s. Ctrl-C stops the embedded run (finished answers
 * stay in `--out`) or, with Redis, only this submitter: the jobs keep running. `--status` shows the queue.
 * The questions file is untrusted: an item may choose only among the models the operator allowed.
 */
export async function runBatch(options: BatchOptions, { io, signal }: CommandContext): Promise<number> {
  if (options.status) return showStatus(options, { io, signal });
  const inputPath = resolve(io.cwd, options.input as string);
  const out = resolve(io.cwd, options.out as string);
  const callCachePath = options.redis
    ? undefined
    : resolve(io.cwd, options.callCache ?? `${out}.calls.jsonl`);
  const config = questionRunConfig(options, io.cwd);
  // Before anything is read or written: an output over an input would destroy it.
  await refuseOutputOverInput({
    outputs: [
      ["--out", options.out],
      ["--call-cache", callCachePath],
    ],
    inputs: [
      ["questions file", options.input],
      ["index folder", config.index],
    ],
    cwd: io.cwd,
  });
  let bytes: Uint8Array;
  try {
    bytes = await readFile(inputPath);
  } catch {
    throw new UsageError(
      `Cannot read ${options.input}.`,
      'Give a JSONL file with one {"id": …, "query": …} per line.',
    );
  }
  const trust: BatchTrust = {
    command: "batch",
    llm: options.llm ?? null,
    allowLLM: options.allowLLM,
    embed: options.embed ?? null,
    indexRoots: [config.index],
    store: options.store,
  };
  const items = readQuestionItems(bytes, trust);
  if (options.store) await checkStore(options.store);
  else await checkIndex(config.index, options.index as string);
  const runId = options.runId ?? defaultRunId(out);
  const runner = await createQuestionRunner({
    redis: options.redis
      ? {
          url: options.redis,
          queueName: options.queue,
          requestsPerMinute: options.requestsPerMinute,
          tokensPerMinute: options.tokensPerMinute,
        }
      : undefined,
    embedded: {
      out,
      callCache: callCachePath as string,
      hmacKey: io.env[CACHE_HMAC_KEY_ENV],
      processors: (store) =>
        questionProcessors(io, { store, trust, secrets: urlCredentials(options.store) }).processors,
      concurrency: options.concurrency,
    },
    attempts: options.attempts,
    signal,
    warn: (text) => io.stderr.write(text),
  });

  const progress = createProgress({
    enabled: io.stderrIsTTY && !options.json,
    sink: io.stderr,
    columns: io.columns,
  });
  progress.start(`Batch (${runner.backend})`, items.length);
  const prices = { input: options.priceIn, output: options.priceOut };
  const onProgress = (snapshot: BatchProgress) => {
    const detail = batchProgressDetail(snapshot, prices);
    progress.update(snapshot.done + snapshot.failed + snapshot.skipped, detail, {
      etaMs: batchEtaMs(snapshot),
    });
  };
  let outcome: BatchOutcome;
  try {
    outcome = await runner.run({ runId, kind: "question", config, items, signal, onProgress });
  } catch (error) {
    progress.clear();
    if (signal.aborted && options.redis) {
      io.stderr.write(
        `ragsynth: stopped waiting; the jobs of run ${runId} keep running on the workers. ` +
          `See them with ragsynth batch --status --run-id ${runId} --redis ${hideUrlPassword(options.redis)}, ` +
          "and collect the answers by running the same command again.\n",
      );
    }
    throw error;
  }
  progress.clear();
  if (options.redis) await writeResultsFile(out, outcome.results);
  const summary = summarizeBatch(outcome, { backend: runner.backend, runId, out, prices });
  if (options.json) writeJSON(io, { command: "batch", ...summary });
  else io.stdout.write(`${formatBatchSummary(summary, options.out as string)}\n`);
  return outcome.progress.failed > 0 ? EXIT_FAILURE : EXIT_OK;
}

/** A PostgreSQL index without an index in it is one error before anything runs (the server's own errors as they are). */
async function checkStore(url: string): Promise<void> {
  if (await hasStoreAt(url)) return;
  throw new UsageError(
    `No index in ${storeLabel(url)}.`,
    "Build one with ragsynth index <folder> --store <the same URL>.",
  );
}

/** A wrong `--index` is one error before anything runs or is enqueued, with the command that builds one. */
async function checkIndex(dir: string, given: string): Promise<void> {
  let found: boolean;
  try {
    found = await checkStoredIndex(dir);
  } catch (error) {
    throw new UsageError(
      `Cannot read the index in ${given} (${(error as Error).message.replace(/\.$/, "")}).`,
      "Build it again with ragsynth index <folder>, then pass the .ragsynth folder it wrote to --index.",
    );
  }
  if (!found) {
    throw new UsageError(
      `No index in ${given}.`,
      "Build one with ragsynth index <folder>, then pass the .ragsynth folder it wrote (e.g. --index docs/.ragsynth).",
    );
  }
}

/**
 * `batch --status`: one run's jobs (`--run-id`, or the run `--out` names), else every job in the queue. A
 * Redis that is down or refuses the credentials is one error line, at once.
 */
async function showStatus(options: BatchOptions, { io, signal }: CommandContext): Promise<number> {
  const redisUrl = options.redis as string;
  await checkRedis({ redisUrl, signal });
  const runId = options.runId ?? (options.out ? defaultRunId(resolve(io.cwd, options.out)) : undefined);
  const status = await getBatchStatus({
    redisUrl,
    ...(options.queue ? { queueName: options.queue } : {}),
    ...(runId ? { runId } : {}),
  });
  if (options.json) writeJSON(io, { command: "batch-status", ...status });
  else io.stdout.write(`${formatBatchStatus(status)}\n`);
  return EXIT_OK;
}
