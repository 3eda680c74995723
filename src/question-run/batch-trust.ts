import { realpath } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import type { BatchItem, JsonValue } from "../batch/index.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RESPONSE_MODES, type ResponseMode } from "../synthesizer/types.js";

/**
 * What the operator of a batch or a worker decided, which questions files and queue jobs (untrusted input)
 * cannot change: the model the operator's API key goes with, the other model specs an item or a job may
 * choose, the embedding model, and the folders indexes may be opened from.
 */
export interface BatchTrust {
  /** The operator's own model spec (`--llm` / `RAGSYNTH_LLM`); null for the offline answerer. */
  llm: string | null;
  /** Further specs items and jobs may choose (`--allow-llm`, repeatable). */
  allowLLM: readonly string[];
  /** The operator's embedding spec (`--embed` / `RAGSYNTH_EMBED`); null for the offline one. */
  embed: string | null;
  /** Indexes are opened only when their real path lies under one of these folders. */
  indexRoots: readonly string[];
  /**
   * The operator's PostgreSQL index (`--store`): when set, every question is answered from it and a job's
   * `config.index` is not looked at. It never travels in a job (its URL holds a password).
   */
  store?: string | undefined;
  /** `batch` or `worker`: named in messages, so the operator knows where to add `--allow-llm`. */
  command: "batch" | "worker";
}

/** The longest query, prompt template or system prompt an item or a job may carry, in characters. */
export const MAX_TEXT_LENGTH = 100_000;

const OFFLINE_LLM = "extractive";
const OFFLINE_EMBED = "hashing";

/**
 * The model spec an item or job may use: its own choice when the operator allowed it (their `--llm`, an
 * `--allow-llm`, or the offline `extractive`), the operator's model when it names none.
 * @throws InvalidArgumentError for any other spec: the operator's key never goes to a server they did not name
 */
export function allowedLLM(spec: JsonValue | undefined, trust: BatchTrust, where: string): string | null {
  if (spec === undefined || spec === null) return trust.llm;
  const allowed = [trust.llm ?? OFFLINE_LLM, ...trust.allowLLM];
  if (typeof spec === "string") {
    const wanted = spec.trim();
    if (wanted === (trust.llm ?? OFFLINE_LLM) || wanted.toLowerCase() === OFFLINE_LLM) {
      return wanted.toLowerCase() === OFFLINE_LLM ? null : trust.llm;
    }
    if (trust.allowLLM.some((entry) => entry.trim() === wanted)) return wanted;
  }
  throw new InvalidArgumentError({
    parameter: `${where}.llm`,
    value: spec,
    expected: `be a model this ${trust.command} allows (${[...new Set([...allowed, OFFLINE_LLM])].join(", ")})`,
    hint: `A questions file or a queue job cannot choose a new server for the operator's API key; the operator allows another model with --allow-llm <spec>${trust.command === "worker" ? " on every worker" : ""}.`,
  });
}

/**
 * The embedding spec a job may use: the operator's, or the offline one.
 * @throws InvalidArgumentError for another spec
 */
export function allowedEmbed(spec: JsonValue | undefined, trust: BatchTrust): string | null {
  if (spec === undefined || spec === null) return trust.embed;
  if (typeof spec === "string" && spec.trim().toLowerCase() === OFFLINE_EMBED) return null;
  if (typeof spec === "string" && spec.trim() === trust.embed) return trust.embed;
  throw new InvalidArgumentError({
    parameter: "config.embed",
    value: spec,
    expected: `be this ${trust.command}'s embedding model (${trust.embed ?? OFFLINE_EMBED}) or ${OFFLINE_EMBED}`,
    hint: `Start the ${trust.command} with --embed ${typeof spec === "string" ? spec : "<spec>"} (the model the index was built with).`,
  });
}

/**
 * The real path of an index folder named by a job, when it lies under one of the operator's roots.
 * @throws InvalidArgumentError naming the folder and the roots otherwise (a missing folder included)
 */
export async function indexUnderRoots(dir: JsonValue | undefined, trust: BatchTrust): Promise<string> {
  const fail = (why: string) =>
    new InvalidArgumentError({
      parameter: "config.index",
      value: dir,
      expected: `be an index folder under ${trust.indexRoots.join(" or ")} (${why})`,
      hint:
        trust.command === "worker"
          ? "Start the worker with --index-root <folder> naming the folder that holds the index."
          : "Pass --index the folder ragsynth index wrote.",
    });
  if (typeof dir !== "string" || !isAbsolute(dir)) throw fail("an absolute path");
  let real: string;
  try {
    real = await realpath(dir);
  } catch {
    throw fail("it does not exist");
  }
  for (const root of trust.indexRoots) {
    const base = await realpath(root).catch(() => undefined);
    if (base === undefined) continue;
    const inside = relative(base, real);
    if (inside === "" || (!inside.startsWith("..") && !isAbsolute(inside))) return real;
  }
  throw fail("it lies outside them");
}

type Field = "string" | "integer" | "text";

// What an item of the question kind may carry besides free fields of its own (labels, expected answers).
const QUESTION_ITEM: Record<string, Field> = {
  query: "text",
  mode: "string",
  llm: "string",
  topK: "integer",
  systemPrompt: "text",
  textQaTemplate: "text",
  refineTemplate: "text",
  summaryTemplate: "text",
};

/**
 * Checks an item of the question kind: a non-empty `query`, and the fields ragsynth reads typed and bounded.
 * @throws InvalidArgumentError naming the field
 */
export function checkQuestionItem(item: BatchItem): void {
  const where = `item "${item.id}"`;
  if (typeof item.query !== "string" || item.query.trim() === "") {
    throw new InvalidArgumentError({
      parameter: `${where}.query`,
      value: item.query,
      expected: "be a non-empty string",
    });
  }
  for (const [field, type] of Object.entries(QUESTION_ITEM)) {
    const value = item[field];
    if (value === undefined || (value === null && field !== "query")) continue;
    checkField(`${where}.${field}`, value, type);
  }
  if (item.mode !== undefined && item.mode !== null) checkMode(item.mode, `${where}.mode`);
}

/**
 * Checks a question run's settings as a job carries them: the known fields only, typed and bounded.
 * @throws InvalidArgumentError naming the field
 */
export function checkQuestionConfig(config: JsonValue): void {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new InvalidArgumentError({ parameter: "config", value: config, expected: "be an object" });
  }
  const known: Record<string, Field | "nullable-string" | "nullable-integer"> = {
    index: "string",
    llm: "nullable-string",
    embed: "nullable-string",
    mode: "string",
    topK: "integer",
    contextWindow: "nullable-integer",
    numOutput: "nullable-integer",
    concurrency: "integer",
  };
  for (const [field, value] of Object.entries(config)) {
    // Optional, so that jobs from a submitter without it still run (as not citing).
    if (field === "citations") {
      if (typeof value !== "boolean") {
        throw new InvalidArgumentError({
          parameter: "config.citations",
          value,
          expected: "be true or false",
        });
      }
      continue;
    }
    const type = known[field];
    if (!type) {
      throw new InvalidArgumentError({
        parameter: `config.${field}`,
        value,
        expected: `not be there (a question run's settings are ${Object.keys(known).join(", ")})`,
      });
    }
    if (value === null && type.startsWith("nullable-")) continue;
    checkField(`config.${field}`, value, type.replace("nullable-", "") as Field);
  }
  checkMode(config.mode, "config.mode");
}

/** @throws InvalidArgumentError for a mode that is not one of the response modes (never retried) */
export function checkMode(mode: JsonValue | undefined, parameter: string): ResponseMode {
  if (typeof mode === "string" && (RESPONSE_MODES as readonly string[]).includes(mode))
    return mode as ResponseMode;
  throw new InvalidArgumentError({
    parameter,
    value: mode,
    expected: `be one of the response modes (${RESPONSE_MODES.join(", ")})`,
  });
}

function checkField(parameter: string, value: JsonValue, type: Field): void {
  const ok =
    type === "integer"
      ? typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 1_000_000
      : typeof value === "string" && value.length <= (type === "text" ? MAX_TEXT_LENGTH : 2048);
  if (!ok) {
    throw new InvalidArgumentError({
      parameter,
      value,
      expected:
        type === "integer"
          ? "be a whole number from 1 to 1000000"
          : `be a string of at most ${type === "text" ? MAX_TEXT_LENGTH : 2048} characters`,
    });
  }
}
