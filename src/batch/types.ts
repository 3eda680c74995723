import type { RagsynthErrorCode } from "../errors/ragsynth-error.js";
import type { SynthesisUsage } from "../usage/usage.js";

/** A JSON value: what a job carries and returns (it travels through Redis or a JSONL file). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** One unit of batch work: an `id` unique within the batch, plus whatever the work kind reads. */
export interface BatchItem {
  /** Unique within the batch; results are keyed by it, so a rerun can tell what is finished. */
  id: string;
  [field: string]: JsonValue;
}

/** Why an item failed, as recorded in the results (a typed error's code and message). */
export interface BatchItemError {
  code: RagsynthErrorCode | "unknown";
  message: string;
  /** Attempts made before the item was recorded as failed. */
  attempts?: number;
}

/** The outcome of one item: its `value` when it succeeded, its `error` when it failed for good. */
export interface BatchItemResult<R extends JsonValue = JsonValue> {
  id: string;
  ok: boolean;
  value?: R;
  error?: BatchItemError;
  /** Tokens and calls this item spent (replayed cached calls included, with their original usage). */
  usage?: SynthesisUsage;
}

/** A snapshot of a running batch, for progress bars and `--status`. */
export interface BatchProgress {
  total: number;
  done: number;
  failed: number;
  inFlight: number;
  /** Finished in an earlier run and skipped now. */
  skipped: number;
  promptTokens: number;
  completionTokens: number;
  elapsedMs: number;
  /** True while the backend cannot reach its store (Redis): the run waits for it and resumes. */
  connectionLost?: boolean;
}

/** The result of a whole batch: every item's result, in input order. */
export interface BatchOutcome<R extends JsonValue = JsonValue> {
  results: BatchItemResult<R>[];
  progress: BatchProgress;
}

/** Turns one item into its value; throws a typed error when it fails. Receives the run's `config`. */
export type BatchProcessor<R extends JsonValue = JsonValue> = (
  item: BatchItem,
  context: BatchProcessorContext,
) => Promise<{ value: R; usage?: SynthesisUsage }>;

/** What a processor gets besides its item. */
export interface BatchProcessorContext {
  /** The run's shared settings. */
  config: JsonValue;
  signal: AbortSignal;
  /** 1 on the first try. */
  attempt: number;
  /**
   * Set when the run asked for a per-request rate limit (BullMQ backend): make model calls through
   * `createQueueLLM` with these options, so that each call is one rate-limited job on `<queue>-calls`.
   */
  callQueue?: { redisUrl: string; queueName: string };
}

/**
 * The one interface both backends implement: run every unfinished item of `items` and return all results
 * in input order. `kind` names the processor (`"question"`, `"llm-call"`) the workers run for each item.
 */
export interface BatchRunner {
  readonly backend: "embedded" | "bullmq";
  run<R extends JsonValue = JsonValue>(options: BatchRunOptions): Promise<BatchOutcome<R>>;
  close(): Promise<void>;
}

/** Options of {@link BatchRunner.run}. */
export interface BatchRunOptions {
  /** Names the run: results and jobs are keyed by it, so the same name resumes the same run. */
  runId: string;
  /** The processor to run for each item. */
  kind: string;
  /** Settings every item shares (index folder, model, mode); items may override fields of their own. */
  config?: JsonValue;
  items: readonly BatchItem[];
  signal?: AbortSignal;
  /** Called whenever an item finishes or starts. */
  onProgress?: (progress: BatchProgress) => void;
}

/** Totals over `results`: tokens are summed, failed and done counted. */
export function emptyProgress(total: number): BatchProgress {
  return {
    total,
    done: 0,
    failed: 0,
    inFlight: 0,
    skipped: 0,
    promptTokens: 0,
    completionTokens: 0,
    elapsedMs: 0,
  };
}

/** Adds one finished item to `progress`. */
export function countResult(progress: BatchProgress, result: BatchItemResult): void {
  if (result.ok) progress.done += 1;
  else progress.failed += 1;
  progress.promptTokens += result.usage?.promptTokens ?? 0;
  progress.completionTokens += result.usage?.completionTokens ?? 0;
}

/** The code and message of whatever a processor threw. */
export function toItemError(error: unknown, attempts?: number): BatchItemError {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: typeof code === "string" ? (code as BatchItemError["code"]) : "unknown",
    message,
    ...(attempts === undefined ? {} : { attempts }),
  };
}
