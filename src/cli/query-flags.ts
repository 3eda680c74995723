import { finiteNumber, optimizerSpec, positiveInteger, retrievalMode, timeoutMs } from "./option-values.js";
import type { CommonOptions, QueryCommandOptions } from "./query-options.js";
import { walkFlags } from "./walk-flags.js";

type Values = Record<string, string | boolean | string[] | undefined>;
type Env = Readonly<Record<string, string | undefined>>;

/** `--top-k` when it is not given. */
export const DEFAULT_TOP_K = 4;

/** The last value of a flag given more than once, or its only value. */
export function stringValue(value: unknown): string | undefined {
  if (Array.isArray(value)) return value[value.length - 1] as string | undefined;
  return typeof value === "string" ? value : undefined;
}

/** An environment variable's trimmed value, undefined when unset or blank. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** The flags every command over documents reads the same way: the paths, how they are walked and indexed. */
export function commonFlags(values: Values, env: Env, paths: string[]): CommonOptions {
  return {
    paths,
    walk: walkFlags(values),
    cacheDir: stringValue(values["cache-dir"]),
    store: stringValue(values.store) ?? nonEmpty(env.RAGSYNTH_STORE),
    embed: stringValue(values.embed) ?? nonEmpty(env.RAGSYNTH_EMBED),
    rebuild: values.rebuild === true,
    timeoutMs: timeoutMs(stringValue(values.timeout)),
    json: values.json === true,
    verbose: values.verbose === true,
  };
}

/** Retrieval and the budget, read the same way by `ask`, `plan` and `eval`. @throws UsageError for a bad value */
export function retrievalFlags(
  values: Values,
  env: Env,
): Omit<QueryCommandOptions, keyof CommonOptions | "query" | "report"> {
  return {
    topK: positiveInteger("--top-k", stringValue(values["top-k"])) ?? DEFAULT_TOP_K,
    retrieval: retrievalMode(stringValue(values.retrieval)),
    optimizer: optimizerSpec(stringValue(values.optimizer)),
    similarityCutoff: finiteNumber("--similarity-cutoff", stringValue(values["similarity-cutoff"])),
    llm: stringValue(values.llm) ?? nonEmpty(env.RAGSYNTH_LLM),
    vision: values.vision === true,
    contextWindow: positiveInteger("--context-window", stringValue(values["context-window"])),
    numOutput: positiveInteger("--num-output", stringValue(values["num-output"])),
  };
}
