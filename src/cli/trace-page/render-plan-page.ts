import { scrubSecrets } from "../../errors/scrub-secrets.js";
import { escapeHtml, formatNumber, htmlDocument, percent } from "../../util/html-page.js";

/** A closed range, as `ragsynth plan` reports each figure. */
export interface PlanPageRange {
  min: number;
  max: number;
}

/** One mode of a plan (the fields of the CLI's `ModePlan` the page draws). */
export interface PlanPageMode {
  mode: string;
  llmCalls: PlanPageRange;
  promptTokens: PlanPageRange;
  costUsd?: PlanPageRange | undefined;
  /** Set when the mode would fail for some answer length. */
  error?: string | undefined;
}

/** What the plan page draws. */
export interface PlanPageData {
  query: string;
  model: string;
  contextWindow: number;
  numOutput: number;
  chunks: Array<{ name: string; tokens: number }>;
  modes: PlanPageMode[];
}

const STYLE = `
.bars{display:grid;grid-template-columns:150px repeat(var(--metrics),minmax(0,1fr));gap:6px 14px;align-items:center}
.bars .head{font-weight:600;color:var(--muted);font-size:12px}
.metric{position:relative;height:20px;background:#eef1f6;border-radius:3px}
.metric .min{position:absolute;left:0;top:0;bottom:0;background:var(--accent);border-radius:3px}
.metric .range{position:absolute;top:0;bottom:0;background:rgba(47,111,223,.35)}
.metric .value{position:absolute;right:4px;top:1px;font-size:11px;color:var(--ink)}
.mode-name{font-weight:600}.mode-name .fails{color:var(--bad);font-weight:400;font-size:12px}
table{border-collapse:collapse;font-size:13px}td,th{padding:2px 10px 2px 0;text-align:left}
`;

function rangeText(range: PlanPageRange, format: (value: number) => string): string {
  return range.min === range.max ? format(range.min) : `${format(range.min)}–${format(range.max)}`;
}

function bar(range: PlanPageRange, max: number, format: (value: number) => string, metric: string): string {
  return (
    `<div class="metric" data-metric="${metric}" data-min="${range.min}" data-max="${range.max}">` +
    `<span class="min" style="width:${percent(range.min, max)}"></span>` +
    `<span class="range" style="left:${percent(range.min, max)};width:${percent(range.max - range.min, max)}"></span>` +
    `<span class="value">${escapeHtml(rangeText(range, format))}</span></div>`
  );
}

const usd = (value: number) => `$${value < 0.01 ? value.toFixed(4) : value.toFixed(2)}`;

/** The plan page: every mode side by side as bars (calls, prompt tokens, cost), one self-contained HTML file. */
export function renderPlanPage(plan: PlanPageData): string {
  const data: PlanPageData = {
    ...plan,
    query: scrubSecrets(plan.query),
    chunks: plan.chunks.map((chunk) => ({ ...chunk, name: scrubSecrets(chunk.name) })),
    modes: plan.modes.map((mode) => (mode.error ? { ...mode, error: scrubSecrets(mode.error) } : mode)),
  };
  const withCost = data.modes.some((mode) => mode.costUsd !== undefined);
  const metrics: Array<{
    key: "llmCalls" | "promptTokens" | "costUsd";
    title: string;
    format: (v: number) => string;
  }> = [
    { key: "llmCalls", title: "LLM calls", format: formatNumber },
    { key: "promptTokens", title: "prompt tokens", format: formatNumber },
    ...(withCost ? [{ key: "costUsd" as const, title: "estimated cost (USD)", format: usd }] : []),
  ];
  const maxOf = (key: (typeof metrics)[number]["key"]) =>
    Math.max(1e-9, ...data.modes.map((mode) => mode[key]?.max ?? 0));
  const rows = data.modes.map((mode) => {
    const cells = metrics.map(({ key, format }) => {
      const range = mode[key];
      return range ? bar(range, maxOf(key), format, key) : "<div></div>";
    });
    const fails = mode.error ? `<div class="fails">${escapeHtml(mode.error)}</div>` : "";
    return `<div class="mode-name" data-mode="${escapeHtml(mode.mode)}">${escapeHtml(mode.mode)}${fails}</div>${cells.join("")}`;
  });
  const head = `<div class="head">mode</div>${metrics.map((metric) => `<div class="head">${metric.title}</div>`).join("")}`;
  const chunkRows = data.chunks
    .map(
      (chunk, index) =>
        `<tr><td>[${index + 1}]</td><td>${escapeHtml(chunk.name)}</td><td>${formatNumber(chunk.tokens)}</td></tr>`,
    )
    .join("");
  const body =
    `<header><h1>ragsynth plan</h1><div class="meta">${escapeHtml(data.model)} · window ${formatNumber(data.contextWindow)} · ` +
    `numOutput ${formatNumber(data.numOutput)} · no model was called</div>` +
    `<div class="answer"><strong>Q:</strong> ${escapeHtml(data.query)}</div></header><main>` +
    `<section id="modes"><h2>Modes side by side</h2><div class="bars" style="--metrics:${metrics.length}">${head}${rows.join("")}</div>` +
    `<div class="legend"><span class="swatch" style="background:var(--accent)"></span>with answers of 0 tokens` +
    `<span class="swatch" style="background:rgba(47,111,223,.35)"></span>up to answers of numOutput tokens</div></section>` +
    `<section id="chunks"><h2>Retrieved chunks (${data.chunks.length})</h2><table><tr><th></th><th>source</th><th>tokens</th></tr>${chunkRows}</table></section></main>`;
  return htmlDocument({ title: `ragsynth plan: ${data.query}`, style: STYLE, body, data });
}
