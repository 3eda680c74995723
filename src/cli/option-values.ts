import type { CutoffOptions } from "../postprocessor/cutoff-postprocessors.js";
import { builtInFormats } from "../reader/formats/registry.js";
import { RETRIEVAL_MODES, type RetrievalMode } from "../retrieval/retriever.js";
import { RESPONSE_MODES, type ResponseMode } from "../synthesizer/types.js";
import { didYouMean } from "../util/did-you-mean.js";
import { UsageError } from "./usage-error.js";

// How option values are read and checked, each reader named by the option table (options.ts) that uses it.
// A reader gets the raw value (the last one given, or every one of a repeatable option) and the flag's name.

/** How the sentence optimizer should cut, from `--optimizer percentile=0.5,threshold=0.7`. */
export type OptimizerSpec = NonNullable<CutoffOptions["optimizer"]>;

/** Modes from `--mode a --mode b` or `--mode a,b`. */
export function responseModes(given: readonly string[]): ResponseMode[] {
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

export function finiteNumber(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value)) {
    throw new UsageError(`Expected ${flag} to be a number, got "${raw}".`);
  }
  return value;
}

export function nonNegativeNumber(raw: string | undefined, flag: string): number | undefined {
  const value = finiteNumber(raw, flag);
  if (value !== undefined && value < 0) throw new UsageError(`Expected ${flag} to be 0 or more, got ${raw}.`);
  return value;
}

export function positiveInteger(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`Expected ${flag} to be a whole number of at least 1, got "${raw}".`);
  }
  return value;
}

/** A whole number of at least 0 (`--chunk-overlap 0`), or undefined when not given. @throws UsageError */
export function nonNegativeInteger(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(value)) {
    throw new UsageError(`Expected ${flag} to be a whole number of at least 0, got "${raw}".`);
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

/** `--read-as .mdx=markdown` (repeatable): each ending and the built-in format to read it as. */
export function readAs(given: readonly string[]): Record<string, string> {
  const formats = builtInFormats();
  const out: Record<string, string> = {};
  for (const value of given) {
    const [ending = "", format = "", ...extra] = value.split("=").map((part) => part.trim());
    if (!/^\.?[\w.+-]+$/.test(ending) || format === "" || extra.length > 0) {
      throw new UsageError(
        `Cannot read --read-as "${value}": expected <ending>=<format>.`,
        `Example: --read-as .mdx=markdown. Formats: ${formats.join(", ")}.`,
      );
    }
    if (!formats.includes(format)) {
      throw new UsageError(
        `Unknown format "${format}" in --read-as ${value}.`,
        `${didYouMean(format, formats)}Formats: ${formats.join(", ")}.`,
      );
    }
    out[ending.startsWith(".") ? ending.toLowerCase() : `.${ending.toLowerCase()}`] = format;
  }
  return out;
}

/** The patterns of a repeatable glob option; an empty one is a mistake. */
export function globs(given: readonly string[], flag: string): string[] {
  for (const pattern of given) {
    if (pattern.trim() === "") {
      throw new UsageError(`${flag} needs a glob pattern, got an empty one.`, `Example: ${flag} "**/*.md"`);
    }
  }
  return [...given];
}

/** A repeatable option's values, trimmed, the empty ones left out. */
export function list(given: readonly string[]): string[] {
  return given.map((entry) => entry.trim()).filter((entry) => entry !== "");
}

/** `--report <file>`: a file name, not empty and not another option. */
export function reportPath(value: string | undefined, example: string): string | undefined {
  if (value !== undefined && (value.trim() === "" || value.startsWith("-"))) {
    throw new UsageError(
      `--report needs a file name, got ${JSON.stringify(value)}.`,
      `Pass --report ${example}.`,
    );
  }
  return value;
}
