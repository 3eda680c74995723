import { resolve } from "node:path";
import type { JsonValue } from "../batch/index.js";
import type { ResponseMode } from "../synthesizer/types.js";

/**
 * The settings of a questions run, as they travel in every job. Model *specs*, never keys: each worker
 * reads its own API key from its environment, and uses a spec only when its operator allowed it
 * (`BatchTrust`). Items may override `mode`, `llm` (among the allowed specs), `topK` and the templates.
 */
export interface QuestionRunConfig {
  [field: string]: JsonValue;
  index: string;
  llm: string | null;
  embed: string | null;
  mode: ResponseMode;
  topK: number;
  contextWindow: number | null;
  numOutput: number | null;
  concurrency: number;
  /** Answer through `CitationQueryEngine` (`--citations`); absent in jobs from older submitters. */
  citations?: boolean;
}

/** The run's settings from the command line; the index folder is made absolute so any worker can find it. */
export function questionRunConfig(
  options: {
    index: string | undefined;
    llm: string | undefined;
    embed: string | undefined;
    mode: ResponseMode;
    topK: number;
    contextWindow: number | undefined;
    numOutput: number | undefined;
    citations?: boolean | undefined;
  },
  cwd: string,
): QuestionRunConfig {
  return {
    index: resolve(cwd, options.index ?? "."),
    llm: options.llm ?? null,
    embed: options.embed ?? null,
    mode: options.mode,
    topK: options.topK,
    contextWindow: options.contextWindow ?? null,
    numOutput: options.numOutput ?? null,
    concurrency: 4,
    // Only when asked: a job without the field is read the same by workers that predate it.
    ...(options.citations ? { citations: true } : {}),
  };
}
