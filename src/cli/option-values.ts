import { RETRIEVAL_MODES, type RetrievalMode } from "../query-engine/retriever.js";
import { RESPONSE_MODES, type ResponseMode } from "../synthesizer/types.js";
import { didYouMean, UsageError } from "./usage-error.js";

/** How the sentence optimizer should cut, from `--optimizer percentile=0.5,threshold=0.7`. */
export interface OptimizerSpec {
  percentileCutoff?: number;
  thresholdCutoff?: number;
}

/** Modes from `--mode a --mode b` or `--mode a,b`. */
export function responseModes(raw: unknown): ResponseMode[] {
  const given = (Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : []) as string[];
  const modes: ResponseMode[] = [];
  for (const value of given.flatMap((entry) => entry.split(","))) {
    const mode = value.trim().toLowerCase().replaceAll("-", "_");
    if (!(RESPONSE_MODES as readonly string[]).includes(mode)) {
      throw new UsageError(
        `Unknown response mode "${value}".`,
        `${didYouMean(mode, RESPONSE_MODES)}Valid modes: ${RESPONSE_MODES.join(", ")}.`,
      );
    }
    if (!modes.includes(mode as ResponseMode)) modes.push(mode as ResponseMode);
  }
  return modes;
}

/** `--retrieval lexical|dense|hybrid`; undefined when not given (the index picks by embedder). */
export function retrievalMode(raw: string | undefined): RetrievalMode | undefined {
  if (raw === undefined) return undefined;
  const mode = raw.trim().toLowerCase();
  if (!(RETRIEVAL_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(
      `Unknown --retrieval "${raw}".`,
      `${didYouMean(mode, RETRIEVAL_MODES)}Valid: ${RETRIEVAL_MODES.join(", ")}.`,
    );
  }
  return mode as RetrievalMode;
}

export function finiteNumber(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value)) {
    throw new UsageError(`Expected ${flag} to be a number, got "${raw}".`);
  }
  return value;
}

export function nonNegativeNumber(flag: string, raw: string | undefined): number | undefined {
  const value = finiteNumber(flag, raw);
  if (value !== undefined && value < 0) throw new UsageError(`Expected ${flag} to be 0 or more, got ${raw}.`);
  return value;
}

export function positiveInteger(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`Expected ${flag} to be a whole number of at least 1, got "${raw}".`);
  }
  return value;
}

const OPTIMIZER_KEYS = ["percentile", "threshold"];

/** `percentile=0.5`, `threshold=0.7`, or both, comma-separated. */
export function optimizerSpec(raw: string | undefined): OptimizerSpec | undefined {
  if (raw === undefined) return undefined;
  const spec: OptimizerSpec = {};
  const example = "Example: --optimizer percentile=0.5 or --optimizer threshold=0.7";
  for (const part of raw.split(",")) {
    const [key = "", value, ...extra] = part.split("=").map((piece) => piece.trim());
    if (value === undefined || extra.length > 0 || !OPTIMIZER_KEYS.includes(key)) {
      throw new UsageError(
        `Cannot read --optimizer "${raw}": expected key=value with key percentile or threshold.`,
        `${didYouMean(key, OPTIMIZER_KEYS)}${example}`,
      );
    }
    const number = Number(value);
    if (value === "" || !Number.isFinite(number)) {
      throw new UsageError(`Expected --optimizer ${key} to be a number, got "${value}".`, example);
    }
    if (key === "percentile") {
      if (number <= 0 || number > 1) {
        throw new UsageError(
          `Expected --optimizer percentile to be above 0 and at most 1, got ${value}.`,
          example,
        );
      }
      spec.percentileCutoff = number;
    } else {
      spec.thresholdCutoff = number;
    }
  }
  return spec;
}

/** The CLI's default deadline for one model call (retries and the whole stream included). */
export const DEFAULT_TIMEOUT_SECONDS = 120;

/** `--timeout <seconds>` as milliseconds: a positive number of seconds, fractions allowed. */
export function timeoutMs(raw: string | undefined): number {
  const seconds = raw === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(raw.trim() === "" ? Number.NaN : raw);
  if (!(seconds > 0) || seconds > 86_400) {
    throw new UsageError(
      `Expected --timeout to be a number of seconds above 0 (at most 86400), got "${raw}".`,
      `Example: --timeout ${DEFAULT_TIMEOUT_SECONDS}`,
    );
  }
  return Math.max(1, Math.round(seconds * 1000));
}
