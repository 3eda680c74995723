import type { SynthesisUsage } from "../events/events.js";
import { formatCount, formatDuration, plural } from "../util/format-numbers.js";

// The number formats are the util room's; the CLI's commands take them from here with the rest.
export { formatCount, formatDuration, formatUsd, plural } from "../util/format-numbers.js";

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
