import type { SynthesisUsage } from "../events/events.js";
import { formatNodeLocation, getNodeLocation } from "../schema/node-location.js";
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

/** The file a node came from (its path as the user gave it, from the reader's metadata), or its id. */
export function sourceName(node: NodeWithScore["node"]): string {
  const metadata = node.metadata;
  for (const key of ["file_path", "filePath", "file_name", "fileName", "path", "source"]) {
    const value = metadata[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return node.id;
}

/**
 * The file a node came from and its place in it, as its `metadata.location` tells:
 * `guide.md:120–168 › Configuration › Timeouts`, `spec.pdf p. 12 › 2.3 Glob weights`; for a node without one, the
 * file and the line a reader recorded (`notes.txt:12`), or the file alone.
 */
export function sourceLabel(node: NodeWithScore["node"]): string {
  const location = getNodeLocation(node);
  return location
    ? formatNodeLocation(location, sourceName(node))
    : `${sourceName(node)}${sourceLocation(node)}`;
}

/** Where in the file the node starts, when a reader recorded it as a line number. */
function sourceLocation(node: NodeWithScore["node"]): string {
  const metadata = node.metadata;
  for (const key of ["line", "start_line", "startLine"]) {
    const value = metadata[key];
    if (typeof value === "number") return `:${value}`;
  }
  return "";
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
