import type { SynthesisUsage } from "../events/events.js";
import { sourceLabel } from "../schema/node-source.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { formatCount, formatDuration, plural } from "../util/format-numbers.js";
import type { Style } from "./io.js";

// The number formats are the util room's; the CLI's commands take them from here with the rest.
export { formatCount, formatDuration, formatUsd, plural } from "../util/format-numbers.js";

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
