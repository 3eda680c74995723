import { checkObject, optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { sleep } from "../util/abort.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import { appendResult, prepareResultsFile, readResultsFile, writeResultsFile } from "./results-file.js";
import { backoffDelay, isRetryableItemError } from "./retry-policy.js";
import {
  type BatchItemResult,
  type BatchOutcome,
  type BatchProcessor,
  type BatchRunner,
  type BatchRunOptions,
  countResult,
  emptyProgress,
  type JsonValue,
  toItemError,
} from "./types.js";

/** Options of {@link createEmbeddedRunner}. */
export interface EmbeddedRunnerOptions {
  /** The processor of each work kind (`question`, `llm-call`). */
  processors: Readonly<Record<string, BatchProcessor>>;
  /** The results JSONL: read at start (finished items are skipped), appended as items finish. */
  out: string;
  /** Items processed at once. @default 4 */
  concurrency?: number;
  /** Attempts per item before it is recorded as failed; only retryable failures are tried again. @default 3 */
  attempts?: number;
  /** Delay before the first retry, doubled for each next one. @default 1000 */
  backoffMs?: number;
}

/**
 * The embedded batch backend: runs items in this process, at most `concurrency` at once, and appends each
 * result to `out` the moment it finishes. Resumable: a rerun with the same `out` skips every item that
 * succeeded before (by id) and never runs it again; failed items are tried again. At the end `out` is
 * rewritten in input order, one line per item. Needs no server.
 */
export function createEmbeddedRunner(options: EmbeddedRunnerOptions): BatchRunner {
  const {
    processors,
    out,
    concurrency = 4,
    attempts = 3,
    backoffMs = 1000,
  } = optionsOf("options", options, "{ processors, out?, concurrency?, attempts?, backoffMs? }");
  checkObject(
    "processors",
    processors,
    "be the processor of each work kind ({ question: createQuestionProcessor(…) })",
  );
  return {
    backend: "embedded",
    async run<R extends JsonValue = JsonValue>({
      kind,
      config = null,
      items,
      signal = new AbortController().signal,
      onProgress,
    }: BatchRunOptions): Promise<BatchOutcome<R>> {
      const processor = processors[kind];
      if (!processor) throw unknownKind(kind, processors);
      const started = performance.now();
      await prepareResultsFile(out);
      const previous = await readResultsFile(out);
      const progress = emptyProgress(items.length);
      const report = () => onProgress?.({ ...progress, elapsedMs: performance.now() - started });
      const pending = items.filter((item) => {
        const earlier = previous.get(item.id);
        if (earlier?.ok) progress.skipped += 1;
        return !earlier?.ok;
      });
      report();
      const finished = new Map<string, BatchItemResult>();
      await mapConcurrent(pending, concurrency, signal, async (item, _index, taskSignal) => {
        progress.inFlight += 1;
        report();
        const result = await runItem(item, processor, config, taskSignal, attempts, backoffMs);
        progress.inFlight -= 1;
        if (taskSignal.aborted) return;
        finished.set(item.id, result);
        await appendResult(out, result);
        countResult(progress, result);
        report();
      });
      signal.throwIfAborted();
      const results = items.map(
        (item) => (finished.get(item.id) ?? previous.get(item.id)) as BatchItemResult<R>,
      );
      await writeResultsFile(out, results);
      return { results, progress: { ...progress, elapsedMs: performance.now() - started } };
    },
    async close() {},
  };
}

async function runItem(
  item: BatchRunOptions["items"][number],
  processor: BatchProcessor,
  config: JsonValue,
  signal: AbortSignal,
  attempts: number,
  backoffMs: number,
): Promise<BatchItemResult> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { value, usage } = await processor(item, { config, signal, attempt });
      return { id: item.id, ok: true, value, ...(usage ? { usage } : {}) };
    } catch (error) {
      if (signal.aborted) return { id: item.id, ok: false, error: toItemError(error, attempt) };
      if (attempt >= attempts || !isRetryableItemError(error)) {
        const usage = (error as { usage?: BatchItemResult["usage"] }).usage;
        return { id: item.id, ok: false, error: toItemError(error, attempt), ...(usage ? { usage } : {}) };
      }
      await sleep(backoffDelay(attempt, backoffMs), signal).catch(() => undefined);
    }
  }
}

/** A work kind with no processor: lists the known ones. */
export function unknownKind(
  kind: string,
  processors: Readonly<Record<string, unknown>>,
): InvalidArgumentError {
  return new InvalidArgumentError({
    parameter: "kind",
    value: kind,
    expected: `name a processor (${Object.keys(processors).join(", ") || "none given"})`,
    hint: "Pass a processor for it in `processors`.",
  });
}
