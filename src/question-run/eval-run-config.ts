import { resolve } from "node:path";
import type { JsonValue } from "../batch/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { TokenPrices } from "../eval/prices.js";
import { RETRIEVAL_MODES, type RetrievalMode } from "../retrieval/retriever.js";
import type { ResponseMode } from "../synthesizer/types.js";
import { checkMode } from "./batch-trust.js";

/**
 * The settings of an eval run as they travel in every job of `ragsynth eval --redis`: model *specs*, never
 * keys (a worker reads its own key, and uses a spec only when its operator allowed it), and the absolute
 * index folder the submitter wrote, which the worker opens only under its `--index-root`.
 */
export interface EvalRunConfig {
  [field: string]: JsonValue;
  index: string;
  llm: string | null;
  embed: string | null;
  modes: ResponseMode[];
  topK: number;
  retrieval: RetrievalMode | null;
  similarityCutoff: number | null;
  optimizer: { percentileCutoff?: number; thresholdCutoff?: number } | null;
  contextWindow: number | null;
  numOutput: number | null;
  judge: string | null;
  prices: { input: number; output: number } | null;
  citations: boolean;
}

/** The settings an eval run is chosen with (`ragsynth eval`'s flags), unset ones undefined. */
export interface EvalRunChoices {
  llm?: string | undefined;
  embed?: string | undefined;
  modes: readonly ResponseMode[];
  topK: number;
  retrieval?: RetrievalMode | undefined;
  similarityCutoff?: number | undefined;
  optimizer?: { percentileCutoff?: number; thresholdCutoff?: number } | undefined;
  contextWindow?: number | undefined;
  numOutput?: number | undefined;
  judge?: string | undefined;
  citations: boolean;
}

/** The run's settings from the command line and the index folder the eval opened. */
export function evalRunConfig(
  options: EvalRunChoices,
  indexDir: string,
  prices: TokenPrices | undefined,
): EvalRunConfig {
  const optimizer = options.optimizer;
  return {
    index: resolve(indexDir),
    llm: options.llm ?? null,
    embed: options.embed ?? null,
    modes: [...options.modes],
    topK: options.topK,
    retrieval: options.retrieval ?? null,
    similarityCutoff: options.similarityCutoff ?? null,
    optimizer: optimizer
      ? {
          ...(optimizer.percentileCutoff === undefined
            ? {}
            : { percentileCutoff: optimizer.percentileCutoff }),
          ...(optimizer.thresholdCutoff === undefined ? {} : { thresholdCutoff: optimizer.thresholdCutoff }),
        }
      : null,
    contextWindow: options.contextWindow ?? null,
    numOutput: options.numOutput ?? null,
    judge: options.judge ?? null,
    prices: prices ? { input: prices.input, output: prices.output } : null,
    citations: options.citations,
  };
}

type Check = (value: JsonValue, parameter: string) => boolean;

const isObject = (value: JsonValue): value is { [key: string]: JsonValue } =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const text: Check = (value) => typeof value === "string" && value.length <= 2048;
const count: Check = (value) =>
  typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 1_000_000;
const finite: Check = (value) => typeof value === "number" && Number.isFinite(value);
const nullable =
  (check: Check): Check =>
  (value, parameter) =>
    value === null || check(value, parameter);

const FIELDS: Record<keyof EvalRunConfig & string, [Check, string]> = {
  index: [text, "an absolute path"],
  llm: [nullable(text), "a model spec or null"],
  embed: [nullable(text), "an embedding spec or null"],
  modes: [
    (value, parameter) => {
      if (!Array.isArray(value) || value.length === 0 || value.length > 9) return false;
      for (const [position, mode] of value.entries()) checkMode(mode, `${parameter}[${position}]`);
      return true;
    },
    "a list of 1 to 9 response modes",
  ],
  topK: [count, "a whole number from 1 to 1000000"],
  retrieval: [
    nullable((value) => (RETRIEVAL_MODES as readonly JsonValue[]).includes(value)),
    `one of ${RETRIEVAL_MODES.join(", ")} or null`,
  ],
  similarityCutoff: [nullable(finite), "a number or null"],
  optimizer: [
    nullable(
      (value) =>
        isObject(value) &&
        Object.entries(value).every(
          ([key, cutoff]) => (key === "percentileCutoff" || key === "thresholdCutoff") && finite(cutoff, key),
        ),
    ),
    "{percentileCutoff?, thresholdCutoff?} or null",
  ],
  contextWindow: [nullable(count), "a whole number or null"],
  numOutput: [nullable(count), "a whole number or null"],
  judge: [nullable(text), "a model spec or null"],
  prices: [
    nullable(
      (value) =>
        isObject(value) &&
        Object.keys(value).length === 2 &&
        finite(value.input ?? null, "input") &&
        finite(value.output ?? null, "output") &&
        (value.input as number) >= 0 &&
        (value.output as number) >= 0,
    ),
    "{input, output} in USD per 1M tokens, or null",
  ],
  citations: [(value) => typeof value === "boolean", "true or false"],
};

/**
 * Checks an eval run's settings as a job carries them (untrusted): every field known, typed and bounded.
 * @throws InvalidArgumentError naming the field, what was expected and what arrived
 */
export function checkEvalRunConfig(config: JsonValue): EvalRunConfig {
  if (!isObject(config)) {
    throw new InvalidArgumentError({ parameter: "config", value: config, expected: "be an object" });
  }
  for (const field of Object.keys(config)) {
    if (!Object.hasOwn(FIELDS, field)) {
      throw new InvalidArgumentError({
        parameter: `config.${field}`,
        value: config[field],
        expected: `not be there (an eval run's settings are ${Object.keys(FIELDS).join(", ")})`,
      });
    }
  }
  for (const [field, [check, expected]] of Object.entries(FIELDS)) {
    const value = config[field];
    if (value === undefined || !check(value, `config.${field}`)) {
      throw new InvalidArgumentError({ parameter: `config.${field}`, value, expected: `be ${expected}` });
    }
  }
  return config as EvalRunConfig;
}
