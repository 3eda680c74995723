import type { ResponseMode } from "../synthesizer/types.js";
import { nonNegativeNumber, positiveInteger, responseModes } from "./option-values.js";
import { UsageError } from "./usage-error.js";

/** Options of `ragsynth batch`. */
export interface BatchOptions {
  /** The questions JSONL; undefined with `--status`. */
  input: string | undefined;
  index: string | undefined;
  out: string | undefined;
  /** `--redis`, else `RAGSYNTH_REDIS_URL`: the BullMQ backend; undefined means embedded. */
  redis: string | undefined;
  queue: string | undefined;
  runId: string | undefined;
  status: boolean;
  mode: ResponseMode;
  topK: number;
  llm: string | undefined;
  embed: string | undefined;
  contextWindow: number | undefined;
  numOutput: number | undefined;
  concurrency: number;
  requestsPerMinute: number | undefined;
  tokensPerMinute: number | undefined;
  attempts: number;
  callCache: string | undefined;
  /** `--allow-llm`: model specs items may choose besides `llm`. */
  allowLLM: string[];
  priceIn: number | undefined;
  priceOut: number | undefined;
  /** `--citations`: answers with checked `[N]` citations; each result carries `citations`. */
  citations: boolean;
  json: boolean;
  verbose: boolean;
}

/** Options of `ragsynth worker`. */
export interface WorkerOptions {
  redis: string;
  queue: string | undefined;
  /** The worker's own model (`--llm` / `RAGSYNTH_LLM`), used for jobs that name none or the same. */
  llm: string | undefined;
  /** The worker's embedding model (`--embed` / `RAGSYNTH_EMBED`). */
  embed: string | undefined;
  /** `--allow-llm`: further specs jobs may choose. */
  allowLLM: string[];
  /** `--index-root`: indexes are opened only under these folders (default: the current folder). */
  indexRoots: string[];
  concurrency: number;
  lockDurationMs: number | undefined;
  verbose: boolean;
}

type Values = Record<string, string | boolean | string[] | undefined>;
type Env = Readonly<Record<string, string | undefined>>;

/** Validates `batch` and `worker` arguments. @throws UsageError */
export function parseBatchArgs(
  command: "batch" | "worker",
  values: Values,
  positionals: string[],
  env: Env,
): { command: "batch"; options: BatchOptions } | { command: "worker"; options: WorkerOptions } {
  const text = (name: string) => {
    const value = values[name];
    return typeof value === "string" ? value : Array.isArray(value) ? value[value.length - 1] : undefined;
  };
  const list = (name: string) => {
    const value = values[name];
    return (Array.isArray(value) ? value : typeof value === "string" ? [value] : [])
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "");
  };
  const llm = text("llm") ?? (env.RAGSYNTH_LLM?.trim() || undefined);
  const embed = text("embed") ?? (env.RAGSYNTH_EMBED?.trim() || undefined);
  const redis = text("redis") ?? (env.RAGSYNTH_REDIS_URL?.trim() || undefined);
  const concurrency = positiveInteger("--concurrency", text("concurrency")) ?? 4;
  if (command === "worker") {
    if (positionals.length > 0) throw new UsageError(`worker takes no files, got ${positionals.join(" ")}.`);
    if (!redis) {
      throw new UsageError(
        "worker needs a Redis to take jobs from.",
        "Pass --redis redis://host:6379 (or set RAGSYNTH_REDIS_URL).",
      );
    }
    return {
      command,
      options: {
        redis,
        queue: text("queue"),
        llm,
        embed,
        allowLLM: list("allow-llm"),
        indexRoots: list("index-root"),
        concurrency,
        lockDurationMs: positiveInteger("--lock-duration", text("lock-duration")),
        verbose: values.verbose === true,
      },
    };
  }
  const status = values.status === true;
  if (status && !redis) {
    throw new UsageError("batch --status reads a BullMQ queue.", "Pass --redis redis://host:6379.");
  }
  if (!status && positionals.length !== 1) {
    throw new UsageError(
      `batch takes one questions file, got ${positionals.length === 0 ? "none" : positionals.join(" ")}.`,
      "Example: ragsynth batch questions.jsonl --index docs/.ragsynth --out answers.jsonl",
    );
  }
  if (!status && (!text("index") || !text("out"))) {
    throw new UsageError(
      `batch needs ${!text("index") ? "--index <dir> (the folder ragsynth index wrote)" : "--out <answers.jsonl>"}.`,
      "Example: ragsynth batch questions.jsonl --index docs/.ragsynth --out answers.jsonl",
    );
  }
  const modes = responseModes(values.mode);
  if (modes.length > 1) throw new UsageError(`batch takes one --mode, got ${modes.join(", ")}.`);
  return {
    command,
    options: {
      input: positionals[0],
      index: text("index"),
      out: text("out"),
      redis,
      queue: text("queue"),
      runId: text("run-id"),
      status,
      mode: modes[0] ?? "compact",
      topK: positiveInteger("--top-k", text("top-k")) ?? 4,
      llm,
      embed,
      contextWindow: positiveInteger("--context-window", text("context-window")),
      numOutput: positiveInteger("--num-output", text("num-output")),
      concurrency,
      requestsPerMinute: positiveInteger("--requests-per-minute", text("requests-per-minute")),
      tokensPerMinute: positiveInteger("--tokens-per-minute", text("tokens-per-minute")),
      attempts: positiveInteger("--attempts", text("attempts")) ?? 3,
      callCache: text("call-cache"),
      allowLLM: list("allow-llm"),
      priceIn: nonNegativeNumber("--price-in", text("price-in")),
      priceOut: nonNegativeNumber("--price-out", text("price-out")),
      citations: values.citations === true,
      json: values.json === true,
      verbose: values.verbose === true,
    },
  };
}
