import type { SynthesisUsage } from "../events/events.js";
import { sourceLabel } from "../schema/node-source.js";
import type { NodeWithScore } from "../schema/text-node.js";
import type { Style } from "./io.js";

/**
 * `12,345`: rounded, with a comma every three digits (as `Intl.NumberFormat("en-US")` prints it, without loading
 * ICU's locale data, which cost every CLI run a noticeable share of its start-up).
 */
export function formatCount(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const rounded = Math.sign(value) * Math.round(Math.abs(value));
  const digits = String(Math.abs(rounded)).replace(/\B(?=(\d{3})+$)/g, ",");
  return rounded < 0 ? `-${digits}` : digits;
}

/** `0.42 s`, `12 ms`, `1 min 3 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `$0.0012`, with enough digits to show small costs. */
export function formatUsd(value: number): string {
  if (value === 0) return "$0";
  if (value >= 1) return `$${value.toFixed(2)}`;
  const digits = Math.min(8, Math.max(2, 1 - Math.floor(Math.log10(value)) + 1));
  return `$${value.toFixed(digits)}`;
}

/** "1 LLM call", "3 LLM calls". */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
}

function snippet(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, Math.max(1, width - 1)).trimEnd()}…` : flat;
}

/** The sources block: rank, score, file and place in it ({@link sourceLabel}) and the start of the text. */
export function formatSources(sources: readonly NodeWithScore[], style: Style, columns: number): string {
  if (sources.length === 0) return `${style.bold("Sources:")} none\n`;
  const lines = [style.bold("Sources:")];
  sources.forEach((source, index) => {
    const score = source.score === undefined ? "   -  " : source.score.toFixed(3).padStart(6);
    const name = sourceLabel(source.node);
    const head = `  [${index + 1}] ${score}  ${name}`;
    const room = columns - head.length - 4;
    lines.push(room >= 20 ? `${head}  ${style.dim(snippet(source.node.text, room))}` : head);
  });
  return `${lines.join("\n")}\n`;
}

/** The one summary line: mode, LLM calls, prompt and completion tokens, wall time. */
export function formatSummary({
  mode,
  usage,
  wallMs,
  model,
}: {
  mode: string;
  usage: SynthesisUsage;
  wallMs: number;
  model: string;
}): string {
  const retries = usage.retries > 0 ? ` · ${plural(usage.retries, "retry", "retries")}` : "";
  return (
    `${mode} · ${plural(usage.llmCalls, "LLM call")} · ${formatCount(usage.promptTokens)} prompt + ` +
    `${formatCount(usage.completionTokens)} completion tokens${retries} · ${formatDuration(wallMs)} · ${model}`
  );
}
