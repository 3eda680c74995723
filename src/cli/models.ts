import type { CallCacheStore } from "../batch/call-cache.js";
import { createCliProcessors, type SpecModels } from "../question-run/batch-processors.js";
import type { BatchTrust } from "../question-run/batch-trust.js";
import { EVAL_PROCESSORS } from "../question-run/eval-processor.js";
import {
  type EmbedChoice,
  type Env,
  chooseEmbedder as embedderOfSpec,
  type LLMChoice,
  chooseLLM as llmOfSpec,
} from "../spec-models/choose-models.js";
import { type CliIO, cliSecrets, createRedactor } from "./io.js";
import { UsageError } from "./usage-error.js";

export type { EmbedChoice, LLMChoice };

/** The one line printed when no model is configured. */
export const OFFLINE_NOTICE =
  "ragsynth: no model configured, so running offline (BM25 retrieval, extractive answers that quote your files). " +
  "For a real model set RAGSYNTH_LLM=openai:gpt-4o-mini with OPENAI_API_KEY (OPENAI_BASE_URL for another server), " +
  "or RAGSYNTH_LLM=ollama:llama3.1; see --help.";

/** The line printed when `--embed` names a model but no `--llm` is given: retrieval is not the offline one. */
export function extractiveOnlyNotice(embedLabel: string): string {
  return (
    `ragsynth: no --llm given, so answers are extractive (they quote your files); retrieval uses ${embedLabel}. ` +
    "For written answers set --llm or RAGSYNTH_LLM; see --help."
  );
}

const LLM_FORMS = "extractive, openai:<model>, ollama:<model> or <baseURL>#<model>";
const EMBED_FORMS = "hashing, openai:<model>, ollama:<model> or <baseURL>#<model>";

/** A spec that cannot be read, in the CLI's words: the flag, the forms it takes, a likely fix. */
function readingSpec<T>(flag: string, spec: string | undefined, forms: string, choose: () => T): T {
  try {
    return choose();
  } catch {
    const given = spec as string;
    const bare = !given.includes(":") && !given.includes("#");
    throw new UsageError(
      `Cannot read ${flag} "${given}": expected ${forms}.`,
      bare ? `Did you mean openai:${given} or ollama:${given}?` : "Example: openai:gpt-4o-mini",
    );
  }
}

/** Reads `--llm` / `RAGSYNTH_LLM`. @throws UsageError for a spec that cannot be read */
export function chooseLLM(spec: string | undefined, options: Parameters<typeof llmOfSpec>[1]): LLMChoice {
  return readingSpec("--llm", spec, LLM_FORMS, () => llmOfSpec(spec, options));
}

/** Reads `--embed` / `RAGSYNTH_EMBED`. @throws UsageError for a spec that cannot be read */
export function chooseEmbedder(spec: string | undefined, env: Env, timeoutMs?: number): EmbedChoice {
  return readingSpec("--embed", spec, EMBED_FORMS, () => embedderOfSpec(spec, env, timeoutMs));
}

/** Reads `--judge` as `--llm` is read, at the model's own context window; undefined without one. */
export function chooseJudge(options: { judge: string | undefined; timeoutMs: number }, env: Env) {
  const { judge, timeoutMs } = options;
  return judge === undefined ? undefined : chooseLLM(judge, { contextWindow: undefined, env, timeoutMs });
}

/** The CLI's reading of model specs, as the batch and worker processors build their models with it. */
const SPEC_MODELS: SpecModels = { llm: chooseLLM, embedder: chooseEmbedder };

/**
 * The processors of `batch` (embedded) and `worker`: questions and eval questions, models read from specs as the
 * CLI reads them, only those `trust` allows, everything they keep or return scrubbed of the CLI's secrets.
 */
export function questionProcessors(
  io: CliIO,
  { store, trust, secrets = [] }: { store: CallCacheStore; trust: BatchTrust; secrets?: string[] },
) {
  return createCliProcessors({
    env: io.env,
    store,
    trust,
    redact: createRedactor([...cliSecrets(io.env), ...secrets]),
    models: SPEC_MODELS,
    moreProcessors: EVAL_PROCESSORS,
  });
}
