import { DEFAULT_EVAL_MODES } from "../eval/evaluate.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import type { ResponseMode } from "../synthesizer/types.js";
import { nonNegativeNumber, positiveInteger, responseModes } from "./option-values.js";
import { commonFlags, retrievalFlags, stringValue } from "./query-flags.js";
import type { QueryCommandOptions } from "./query-options.js";
import { UsageError } from "./usage-error.js";

/** Options of `ragsynth eval`: retrieval and budget as `ask` takes them, plus the questions and what to compare. */
export interface EvalOptions extends QueryCommandOptions {
  /** The questions JSONL. */
  questions: string;
  /** `--modes`; DEFAULT_EVAL_MODES when none was given. */
  modes: ResponseMode[];
  /** `--judge <llm spec>`: judge each answer with LlamaIndex's evaluators on this model. */
  judge: string | undefined;
  priceIn: number | undefined;
  priceOut: number | undefined;
  /** `--call-cache <file>`; undefined means `<questions>.calls.jsonl` when a model is called, none offline. */
  callCache: string | undefined;
  /** `--out <results.jsonl>`: each question's result kept as it finishes; a rerun skips the finished ones. */
  out: string | undefined;
  /** Questions in flight at once. */
  concurrency: number;
  /** `--citations`: every mode answers with citation prompts, and each answer's citations are checked and counted. */
  citations: boolean;
  /** `--redis` (the flag only): each question a BullMQ job for `ragsynth worker`s; undefined: in-process. */
  redis: string | undefined;
  /** `--queue`: the BullMQ queue (default ragsynth). */
  queue: string | undefined;
  /** `eval generate`: write a questions file from the documents instead of evaluating. */
  generate: boolean;
  /** `--count`/`-n`: questions `eval generate` writes. */
  count: number;
}

type Values = Record<string, string | boolean | string[] | undefined>;
type Env = Readonly<Record<string, string | undefined>>;

const EVAL_EXAMPLE = "ragsynth eval questions.jsonl examples/docs --modes compact,refine";

/** Validates `eval` arguments: the questions file first, then the documents. @throws UsageError */
export function parseEvalArgs(values: Values, positionals: string[], env: Env): EvalOptions {
  const text = (name: string) => stringValue(values[name]);
  const generate = positionals[0] === "generate";
  const [questions, ...paths] = generate ? ["", ...positionals.slice(1)] : positionals;
  if (generate && paths.length === 0) {
    throw new UsageError(
      "eval generate needs at least one file or folder.",
      "Example: ragsynth eval generate examples/docs --llm openai:gpt-4o-mini -n 20 > questions.jsonl",
    );
  }
  if (!generate && text("count") !== undefined) {
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
  const report = text("report");
  if (report !== undefined && (report.trim() === "" || report.startsWith("-"))) {
    throw new UsageError(
      `--report needs a file name, got ${JSON.stringify(report)}.`,
      "Pass --report eval.html.",
    );
  }
  // Only the flag, not RAGSYNTH_REDIS_URL: an eval meant to run here must not wait on a queue nobody works.
  const redis = generate ? undefined : text("redis");
  for (const flag of ["out", "call-cache"]) {
    if (text("redis") !== undefined && text(flag) !== undefined) {
      throw new UsageError(
        `--${flag} is for the in-process run; with --redis the queue keeps each question's result and the workers cache the calls in Redis.`,
        "Leave it out: running the same eval --redis command again collects what is finished and runs only what is missing.",
      );
    }
  }
  const common = commonFlags(values, env, paths);
  if (redis !== undefined && common.store !== undefined && isPostgresUrl(common.store)) {
    throw new UsageError(
      "eval --redis with a PostgreSQL --store: the workers answer the jobs, and a job never names the store.",
      "Start each worker with --store <the URL>, or run the eval in this process (without --redis).",
    );
  }
  const modes = responseModes(values.modes);
  const judge = text("judge")?.trim();
  if (judge === "") throw new UsageError("--judge needs a model spec.", "Pass --judge openai:gpt-4o-mini.");
  return {
    questions,
    ...common,
    query: "",
    ...retrievalFlags(values, env),
    report,
    modes: modes.length > 0 ? modes : [...DEFAULT_EVAL_MODES],
    judge,
    priceIn: nonNegativeNumber("--price-in", text("price-in")),
    priceOut: nonNegativeNumber("--price-out", text("price-out")),
    callCache: text("call-cache"),
    out: text("out"),
    concurrency: positiveInteger("--concurrency", text("concurrency")) ?? 4,
    citations: values.citations === true,
    redis,
    queue: text("queue"),
    generate,
    count: positiveInteger("--count", text("count")) ?? 100,
  };
}
