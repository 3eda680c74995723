import { escapeHtml, formatMs, formatNumber, htmlDocument } from "../util/html-page.js";
import { EVAL_PAGE_SCRIPT } from "./eval-page-script.js";
import type { EvalReport, ModeAnswer, ModeSummary, QuestionResult } from "./eval-result.js";

const WIDTH = 640;
const HEIGHT = 340;
const MARGIN = { left: 56, right: 24, top: 16, bottom: 44 };

const STYLE = `
#chart svg{width:100%;max-width:${WIDTH}px;height:auto;display:block}
.axis{stroke:var(--muted);stroke-width:1}.grid{stroke:var(--line);stroke-width:1}
.tick{fill:var(--muted);font-size:11px}.axis-label{fill:var(--ink);font-size:12px}
.point{cursor:pointer}.point circle{fill:var(--accent);stroke:#fff;stroke-width:2}
.point.best circle{fill:var(--accent2)}.point.selected circle{stroke:var(--ink);stroke-width:3}
.point text{font-size:12px;fill:var(--ink)}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line)}
th{font-weight:600}tr.best td:first-child::after{content:" ★ best";color:var(--accent2)}
.question{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 10px}
.question summary{cursor:pointer}.question.fail summary .verdict{color:var(--bad)}.question.pass summary .verdict{color:var(--accent2)}
.failures{color:var(--bad)}.source{color:var(--muted);font-size:12px;white-space:pre-wrap;border-left:3px solid var(--line);padding-left:8px;margin:4px 0}
.source.relevant{border-left-color:var(--accent2)}
`;

/** The page data the script and tools read: the report without the long texts (they are in the markup). */
function pageData(report: EvalReport) {
  return {
    k: report.k,
    model: report.model,
    best: report.best,
    retrieval: report.retrieval,
    modes: report.modes,
  };
}

/** Cost on the chart's x axis: dollars when the best mark ranked by dollars, else thousands of tokens. */
function costOf(mode: ModeSummary, unit: "dollars" | "tokens"): number {
  return unit === "dollars"
    ? (mode.dollars ?? 0)
    : (mode.usage.promptTokens + mode.usage.completionTokens) / 1000;
}

function chart(report: EvalReport): string {
  const unit = report.best?.costUnit ?? (report.modes.every((mode) => mode.dollars) ? "dollars" : "tokens");
  const maxCost = Math.max(0, ...report.modes.map((mode) => costOf(mode, unit))) * 1.1 || 1;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (cost: number) => MARGIN.left + (cost / maxCost) * plotWidth;
  const y = (quality: number) => MARGIN.top + (1 - quality) * plotHeight;
  const parts: string[] = [];
  for (const quality of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(quality)}" y2="${y(quality)}"/>`,
      `<text class="tick" x="${MARGIN.left - 6}" y="${y(quality) + 4}" text-anchor="end">${(quality * 100).toFixed(0)}%</text>`,
    );
  }
  for (let step = 0; step <= 4; step++) {
    const cost = (maxCost * step) / 4;
    const label = unit === "dollars" ? `$${cost.toPrecision(2)}` : cost.toFixed(cost < 10 ? 1 : 0);
    parts.push(
      `<text class="tick" x="${x(cost)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${label}</text>`,
    );
  }
  parts.push(
    `<line class="axis" x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${HEIGHT - MARGIN.bottom}"/>`,
    `<line class="axis" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${HEIGHT - MARGIN.bottom}" y2="${HEIGHT - MARGIN.bottom}"/>`,
    `<text class="axis-label" x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 8}" text-anchor="middle">cost (${unit === "dollars" ? "USD" : "1,000 tokens, prompt + completion"})</text>`,
    `<text class="axis-label" transform="rotate(-90)" x="${-(MARGIN.top + plotHeight / 2)}" y="14" text-anchor="middle">quality (${qualityName(report)})</text>`,
  );
  const placed: Array<{ cx: number; cy: number }> = [];
  for (const mode of report.modes) {
    const quality = mode.quality ?? 0;
    const best = report.best?.mode === mode.mode;
    const cx = x(costOf(mode, unit));
    const cy = y(quality);
    // Modes at (nearly) the same spot: their labels stack upwards instead of printing over each other.
    const below = placed.filter(
      (point) => Math.abs(point.cx - cx) < 30 && Math.abs(point.cy - cy) < 12,
    ).length;
    placed.push({ cx, cy });
    const labelY = cy - 8 - below * 14;
    parts.push(
      `<g class="point${best ? " best" : ""}" data-mode="${escapeHtml(mode.mode)}" tabindex="0" role="button"><title>${escapeHtml(
        `${mode.mode}: quality ${(quality * 100).toFixed(0)}%, cost ${costOf(mode, unit).toPrecision(3)}`,
      )}</title><circle cx="${cx}" cy="${cy}" r="8"/><text x="${cx + 11}" y="${labelY}">${escapeHtml(mode.mode)}${best ? " ★" : ""}</text></g>`,
    );
  }
  return `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="quality against cost per mode">${parts.join("")}</svg>`;
}

function qualityName(report: EvalReport): string {
  const metric = report.modes.find((mode) => mode.qualityMetric)?.qualityMetric;
  return metric === "f1"
    ? "token F1"
    : metric === "correctness"
      ? "correctness pass rate"
      : "answer holds the phrase";
}

function share(value: number | undefined): string {
  return value === undefined ? "–" : `${(value * 100).toFixed(0)}%`;
}

function modesTable(report: EvalReport): string {
  const judges = [...new Set(report.modes.flatMap((mode) => Object.keys(mode.judges ?? {})))];
  const cited = report.modes.some((mode) => mode.citations !== undefined);
  const head = [
    "mode",
    "holds phrase",
    "token F1",
    "answer tokens",
    ...(cited ? ["citations", "cited from relevant", "unsupported"] : []),
    ...judges,
    "errors",
    "calls",
    "prompt tokens",
    "completion tokens",
    "USD",
    "time (sum)",
  ];
  const rows = report.modes.map((mode) => {
    const cells = [
      mode.mode,
      `${share(mode.phraseShare)} of ${mode.phraseQuestions}`,
      mode.meanF1 === undefined ? "–" : mode.meanF1.toFixed(2),
      mode.meanAnswerTokens.toFixed(0),
      ...(cited
        ? [
            mode.citations ? formatNumber(mode.citations.citations) : "–",
            share(mode.citations?.precision),
            share(mode.citations?.unsupportedShare),
          ]
        : []),
      ...judges.map((name) => {
        const summary = mode.judges?.[name];
        return summary ? `${share(summary.passRate)} (${summary.failures} unread)` : "–";
      }),
      String(mode.errors),
      formatNumber(mode.usage.calls),
      formatNumber(mode.usage.promptTokens),
      formatNumber(mode.usage.completionTokens),
      mode.dollars === undefined ? "–" : `$${mode.dollars.toFixed(4)}`,
      formatMs(mode.wallMs),
    ];
    const best = report.best?.mode === mode.mode ? " best" : "";
    return `<tr class="mode-row${best}" data-mode="${escapeHtml(mode.mode)}">${cells.map((cell) => `<td>${escapeHtml(cell)}</td>`).join("")}</tr>`;
  });
  return `<table><thead><tr>${head.map((cell) => `<th>${escapeHtml(cell)}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function answerPasses(answer: ModeAnswer): boolean {
  return answer.failures.length === 0;
}

function questionDetails(question: QuestionResult, answer: ModeAnswer): string {
  const relevantRank = question.retrieval?.firstRelevantRank ?? null;
  const verdict = answerPasses(answer) ? "✓" : "✗";
  const scores = [
    answer.holdsPhrase === undefined ? "" : `phrase ${answer.holdsPhrase ? "held" : "missing"}`,
    answer.f1 === undefined ? "" : `F1 ${answer.f1.toFixed(2)}`,
    `${answer.answerTokens} tokens`,
    relevantRank === null
      ? question.retrieval
        ? "no relevant file retrieved"
        : ""
      : `relevant at rank ${relevantRank}`,
  ].filter(Boolean);
  const sources = question.sources
    .map(
      (source, index) =>
        `<div class="source${relevantRank === index + 1 ? " relevant" : ""}">[${index + 1}] ${escapeHtml(source.filePath ?? source.id)}${source.score === undefined ? "" : ` · ${source.score.toFixed(3)}`}\n${escapeHtml(source.text)}</div>`,
    )
    .join("");
  const judges = Object.entries(answer.judges ?? {})
    .map(
      ([name, judged]) =>
        `<li>${escapeHtml(name)}: ${judged.passing === null ? `unread (${escapeHtml(judged.error ?? "")})` : judged.passing ? "pass" : "fail"}${judged.score === null ? "" : `, score ${judged.score}`}</li>`,
    )
    .join("");
  return `<details class="question ${answerPasses(answer) ? "pass" : "fail"}" data-id="${escapeHtml(question.id)}"><summary><span class="verdict">${verdict}</span> <b>${escapeHtml(question.id)}</b> ${escapeHtml(question.query)} <span class="meta">· ${escapeHtml(scores.join(" · "))}</span></summary>
<h3>Answer</h3><div class="answer">${escapeHtml(answer.answer || "(none)")}</div>
${answer.failures.length > 0 ? `<h3>Why it failed</h3><ul class="failures">${answer.failures.map((failure) => `<li>${escapeHtml(failure)}</li>`).join("")}</ul>` : ""}
${judges ? `<h3>Judges</h3><ul>${judges}</ul>` : ""}
<h3>Sources</h3>${sources || '<p class="meta">nothing retrieved</p>'}</details>`;
}

function drillDown(report: EvalReport): string {
  return report.modes
    .map((mode, index) => {
      const items = report.questions.flatMap((question) => {
        const answer = question.answers.find((entry) => entry.mode === mode.mode);
        return answer ? [questionDetails(question, answer)] : [];
      });
      return `<div class="mode-drill" data-mode="${escapeHtml(mode.mode)}"${index === 0 ? "" : " hidden"}><h2>${escapeHtml(mode.mode)}: each question</h2>${items.join("\n")}</div>`;
    })
    .join("\n");
}

/**
 * The eval page: one self-contained HTML file (inline SVG and script, nothing fetched) with quality against
 * cost per mode, the per-mode table, and a per-question drill-down (answer, sources, why it failed) for the
 * mode whose point was clicked.
 */
export function renderEvalPage(report: EvalReport): string {
  const retrieval = report.retrieval;
  const k = report.k;
  const body = `<header><h1>ragsynth eval</h1><div class="meta">${escapeHtml(report.model)} · ${formatNumber(report.questions.length)} questions · ${formatNumber(report.modes.length)} modes · top ${k}</div>
<div class="meta">${
    retrieval
      ? escapeHtml(
          `Retrieval (${retrieval.questions} questions, by file): hit@${k} ${retrieval.hitRate.toFixed(2)} · MRR@${k} ${retrieval.mrr.toFixed(2)} · nDCG@${k} ${retrieval.ndcg.toFixed(2)} · precision@${k} ${retrieval.precision.toFixed(2)} · recall@${k} ${retrieval.recall.toFixed(2)}`,
        )
      : "Retrieval not scored: no question names its relevant files."
  }</div></header>
<main><section id="chart"><h2>Quality against cost per mode</h2>${chart(report)}<div class="legend">Click a point to see that mode's answers below. ★ marks the best quality per ${report.best?.costUnit === "dollars" ? "dollar" : "1,000 tokens (no prices, or $0 offline)"}.</div></section>
<section id="modes">${modesTable(report)}</section>
<section id="drill" data-mode="${escapeHtml(report.modes[0]?.mode ?? "")}">${drillDown(report)}</section></main>`;
  return htmlDocument({
    title: "ragsynth eval",
    style: STYLE,
    body,
    data: pageData(report),
    script: EVAL_PAGE_SCRIPT,
  });
}
