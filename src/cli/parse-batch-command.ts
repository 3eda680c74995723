import { hideUrlPasswords } from "../errors/scrub-secrets.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import type { ResponseMode } from "../synthesizer/types.js";
import { nonNegativeNumber, positiveInteger, responseModes } from "./option-values.js";
import { UsageError } from "./usage-error.js";

/** Options of `ragsynth batch`. */
export interface BatchOptions {
  /** The questions JSONL; undefined with `--status`. */
  input: string | undefined;
  index: string | undefined;
  /** `--store`, else `RAGSYNTH_STORE`: a PostgreSQL URL every question is answered from (instead of `--index`). */
  store: string | undefined;
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
  /** `--store`, else `RAGSYNTH_STORE`: a PostgreSQL URL every job is answered from, whatever the job names. */
  store: string | undefined;
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
  // RAGSYNTH_STORE counts here only as a URL (a folder there is for ask, plan and index).
  const fromEnv = env.RAGSYNTH_STORE?.trim();
  const store = text("store") ?? (fromEnv && isPostgresUrl(fromEnv) ? fromEnv : undefined);
  if (store !== undefined && !isPostgresUrl(store)) {
    throw new UsageError(
      `${command} --store takes a PostgreSQL URL, got ${hideUrlPasswords(store)}.`,
      command === "batch"
        ? "Pass the folder of a SQLite index with --index instead."
        : "Name the folders of SQLite indexes with --index-root instead.",
    );
  }
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
        store,
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
  if (store && redis && !status) {
    throw new UsageError(
      "batch --store with --redis: the workers answer the jobs, and a job never names the store.",
      "Start each worker with --store <the URL> instead: batch --store answers in this process only.",
    );
  }
  if (!status && ((!text("index") && !store) || !text("out"))) {
    throw new UsageError(
      `batch needs ${!text("index") && !store ? "--index <dir> (the folder ragsynth index wrote) or --store <postgres://…>" : "--out <answers.jsonl>"}.`,
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
      store,
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
