// Numbers as the command line and the text tables print them.

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
