import { DEFAULT_EVAL_MODES } from "../eval/evaluate.js";
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from "../splitter/sentence-splitter.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import { RESPONSE_MODES, type ResponseMode } from "../synthesizer/types.js";
import type { CommandName } from "./options.js";
import { type CommandValues, type ParsedValues, readOptions } from "./read-options.js";
import { UsageError } from "./usage-error.js";

// The options each command runs with, built from the option table's checked values (parse-command.ts reads
// argv and hands the values over), and their types, which follow from what is built here.

type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_MODE: ResponseMode = "compact";
/** Adaptive: the model's shared limiter grows while the server keeps up and cuts to what it held on 429/503. */
export const DEFAULT_CONCURRENCY = "adaptive" as const;

/** The commands and the options each runs with, read and checked from the option table. */
export type ParsedCommand =
  | { command: "batch"; options: ReturnType<typeof batchOptions> }
  | { command: "worker"; options: ReturnType<typeof workerOptions> }
  | { command: "eval"; options: ReturnType<typeof evalOptions> }
  | { command: "ask"; options: ReturnType<typeof askOptions> }
  | { command: "plan"; options: ReturnType<typeof planOptions> }
  | { command: "index"; options: ReturnType<typeof withWalk<CommandValues<"index">>> }
  | { command: "help"; topic: CommandName | undefined }
  | { command: "version" };

export type Question = (flag: string | undefined) => string;

/** `plan`: the question, and the modes to plan (every mode when none was given). */
export function planOptions(values: ParsedValues, paths: string[], env: Env, question: Question) {
  const { mode: modes, ...read } = withWalk(readOptions("plan", values, env), paths);
  return { ...read, query: question(read.query), modes: modes.length > 0 ? modes : [...RESPONSE_MODES] };
}

/**
 * `ask`: the question, one mode, and `stream`: `--stream`/`--no-stream`, whichever came last (undefined means "when
 * stdout is a terminal"), not each alone.
 */
export function askOptions(
  values: ParsedValues,
  paths: string[],
  env: Env,
  question: Question,
  stream: boolean | undefined,
) {
  const { mode: modes, concurrency, noStream: _, ...rest } = withWalk(readOptions("ask", values, env), paths);
  const query = question(rest.query);
  if (rest.judge !== undefined && (rest.judge === "" || !rest.citations)) {
    throw new UsageError(
      rest.judge === "" ? "--judge needs a model spec." : "--judge on ask judges citations: add --citations.",
      'Example: ragsynth ask docs -q "…" --citations --judge openai:gpt-4o-mini',
    );
  }
  if (modes.length > 1) {
    throw new UsageError(
      `ask takes one --mode, got ${modes.length}: ${modes.join(", ")}.`,
      "Use ragsynth plan to compare modes.",
    );
  }
  const mode: ResponseMode = modes[0] ?? DEFAULT_MODE;
  return { ...rest, query, mode, concurrency: concurrency ?? DEFAULT_CONCURRENCY, stream };
}

/** A command's values with the walk flags gathered as the folder opener takes them, and its paths. */
export function withWalk<V extends CommandValues<"index">>(values: V, paths: string[]) {
  const {
    include,
    exclude,
    readAs,
    noIgnore,
    hidden,
    followSymlinks,
    chunkSize,
    chunkOverlap,
    help: _help,
    ...rest
  } = values;
  return {
    ...rest,
    paths,
    walk: { include, exclude, readAs, noIgnore, hidden, followSymlinks },
    chunking: chunkingOf(chunkSize, chunkOverlap),
  };
}

/**
 * `--chunk-size`/`--chunk-overlap` as the splitter takes them, or undefined for the default splitter: a smaller chunk
 * without its own overlap gets LlamaIndex's default, or what the size holds. An overlap the size cannot hold is a
 * mistake on the command line (exit 2), said with both numbers before anything runs. @throws UsageError
 */
function chunkingOf(
  chunkSize: number | undefined,
  chunkOverlap: number | undefined,
): { chunkSize: number; chunkOverlap: number } | undefined {
  if (chunkSize === undefined && chunkOverlap === undefined) return undefined;
  const size = chunkSize ?? DEFAULT_CHUNK_SIZE;
  const overlap = chunkOverlap ?? Math.min(DEFAULT_CHUNK_OVERLAP, Math.floor(size / 5));
  if (overlap >= size) {
    throw new UsageError(
      `--chunk-overlap (${overlap}) must be less than --chunk-size (${size}).`,
      `Example: --chunk-size ${size} --chunk-overlap ${Math.floor(size / 5)}`,
    );
  }
  return { chunkSize: size, chunkOverlap: overlap };
}

const BATCH_EXAMPLE = "Example: ragsynth batch questions.jsonl --index docs/.ragsynth --out answers.jsonl";

/** `batch`: one questions file (none with `--status`), `--index` and `--out`. @throws UsageError */
export function batchOptions(values: ParsedValues, positionals: string[], env: Env) {
  const { mode: modes, concurrency, help: _help, ...read } = readOptions("batch", values, env);
  if (read.status && !read.redis) {
    throw new UsageError("batch --status reads a BullMQ queue.", "Pass --redis redis://host:6379.");
  }
  if (!read.status && positionals.length !== 1) {
    throw new UsageError(
      `batch takes one questions file, got ${positionals.length === 0 ? "none" : positionals.join(" ")}.`,
      BATCH_EXAMPLE,
    );
  }
  if (read.store && read.redis && !read.status) {
    throw new UsageError(
      "batch --store with --redis: the workers answer the jobs, and a job never names the store.",
      "Start each worker with --store <the URL> instead: batch --store answers in this process only.",
    );
  }
  if (!read.status && ((!read.index && !read.store) || !read.out)) {
    throw new UsageError(
      `batch needs ${!read.index && !read.store ? "--index <dir> (the folder ragsynth index wrote) or --store <postgres://…>" : "--out <answers.jsonl>"}.`,
      BATCH_EXAMPLE,
    );
  }
  if (modes.length > 1) throw new UsageError(`batch takes one --mode, got ${modes.join(", ")}.`);
  return { ...read, input: positionals[0], mode: modes[0] ?? DEFAULT_MODE, concurrency: concurrency ?? 4 };
}

/** `worker`: no files, and a Redis to take jobs from. @throws UsageError */
export function workerOptions(values: ParsedValues, positionals: string[], env: Env) {
  const { redis, concurrency, help: _help, ...read } = readOptions("worker", values, env);
  if (positionals.length > 0) throw new UsageError(`worker takes no files, got ${positionals.join(" ")}.`);
  if (!redis) {
    throw new UsageError(
      "worker needs a Redis to take jobs from.",
      "Pass --redis redis://host:6379 (or set RAGSYNTH_REDIS_URL).",
    );
  }
  return { ...read, redis, concurrency: concurrency ?? 4 };
}

const EVAL_EXAMPLE = "ragsynth eval questions.jsonl examples/docs --modes compact,refine";

/** `eval`: the questions file first, then the documents; or `eval generate` and the documents. @throws UsageError */
export function evalOptions(values: ParsedValues, positionals: string[], env: Env) {
  const generate = positionals[0] === "generate";
  const [questions, ...paths] = generate ? ["", ...positionals.slice(1)] : positionals;
  if (generate && paths.length === 0) {
    throw new UsageError(
      "eval generate needs at least one file or folder.",
      "Example: ragsynth eval generate examples/docs --llm openai:gpt-4o-mini -n 20 > questions.jsonl",
    );
  }
  if (!generate && values.count !== undefined) {
    throw new UsageError(
      "--count is for eval generate.",
      "Example: ragsynth eval generate docs/ --llm … -n 100",
    );
  }
  if (questions === undefined || paths.length === 0) {
    throw new UsageError(
      questions === undefined
        ? "eval needs a questions file and at least one file or folder."
        : `eval needs at least one file or folder after the questions file ${questions}.`,
      `Example: ${EVAL_EXAMPLE}`,
    );
  }
  // Only the flag, not RAGSYNTH_REDIS_URL: an eval meant to run here must not wait on a queue nobody works.
  const redisFlag = [values.redis].flat().at(-1) as string | undefined;
  for (const flag of ["out", "call-cache"]) {
    if (redisFlag !== undefined && values[flag] !== undefined) {
      throw new UsageError(
        `--${flag} is for the in-process run; with --redis the queue keeps each question's result and the workers cache the calls in Redis.`,
        "Leave it out: running the same eval --redis command again collects what is finished and runs only what is missing.",
      );
    }
  }
  const { modes, concurrency, ...read } = withWalk(readOptions("eval", values, env), paths);
  if (read.judge === "")
    throw new UsageError("--judge needs a model spec.", "Pass --judge openai:gpt-4o-mini.");
  if (!generate && redisFlag !== undefined && read.store !== undefined && isPostgresUrl(read.store)) {
    throw new UsageError(
      "eval --redis with a PostgreSQL --store: the workers answer the jobs, and a job never names the store.",
      "Start each worker with --store <the URL>, or run the eval in this process (without --redis).",
    );
  }
  return {
    ...read,
    questions,
    query: "",
    vision: false,
    redis: generate ? undefined : redisFlag,
    modes: modes.length > 0 ? modes : [...DEFAULT_EVAL_MODES],
    concurrency: concurrency ?? 4,
    generate,
  };
}

type OptionsOf<C extends ParsedCommand["command"]> = Extract<
  ParsedCommand,
  { command: C; options: unknown }
>["options"];

export type AskOptions = OptionsOf<"ask">;
export type PlanOptions = OptionsOf<"plan">;
export type IndexOptions = OptionsOf<"index">;
/** `input` is the questions JSONL (undefined with `--status`). */
export type BatchOptions = OptionsOf<"batch">;
export type WorkerOptions = OptionsOf<"worker">;
/** `redis` is the flag only (each question a job for `ragsynth worker`s); `generate`: `eval generate`. */
export type EvalOptions = OptionsOf<"eval">;

/** Options of the commands that retrieve for a query (ask, plan, eval); not the library's `QueryOptions` of `engine.query`. */
export type QueryCommandOptions = Omit<PlanOptions, "modes" | "priceIn" | "priceOut">;
