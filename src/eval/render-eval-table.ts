import { formatCount, formatDuration, formatUsd } from "../util/format-numbers.js";
import { textTable } from "../util/text-table.js";
import type { EvalReport, ModeSummary } from "./eval-result.js";

/** How the table marks its header, notes and the best mode (the CLI's colors, or plain text). */
export interface EvalTableStyle {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
}

const share = (value: number | undefined) => (value === undefined ? "–" : `${(value * 100).toFixed(0)}%`);
const fixed = (value: number | undefined) => (value === undefined ? "–" : value.toFixed(2));

/** The retrieval line: the means at k over the questions that name their relevant files. */
export function retrievalLine(report: EvalReport): string {
  const retrieval = report.retrieval;
  if (!retrieval) return "Retrieval: no question names its relevant files (`relevant`), so it is not scored.";
  const k = retrieval.k;
  return (
    `Retrieval (${formatCount(retrieval.questions)} questions with \`relevant\`, by file): ` +
    `hit@${k} ${fixed(retrieval.hitRate)} · MRR@${k} ${fixed(retrieval.mrr)} · nDCG@${k} ${fixed(retrieval.ndcg)} · ` +
    `precision@${k} ${fixed(retrieval.precision)} · recall@${k} ${fixed(retrieval.recall)}`
  );
}

/**
 * The per-mode table: quality columns (phrase share with its question count, F1, answer length, judges) beside
 * cost columns (calls, tokens, dollars, wall time), with the best quality per dollar marked.
 */
export function renderEvalTable(report: EvalReport, style: EvalTableStyle): string {
  const judgeNames = [...new Set(report.modes.flatMap((mode) => Object.keys(mode.judges ?? {})))];
  const withPhrase = report.modes.some((mode) => mode.phraseQuestions > 0);
  const withF1 = report.modes.some((mode) => mode.referenceQuestions > 0);
  const withCitations = report.modes.some((mode) => mode.citations !== undefined);
  const header = [
    "mode",
    ...(withPhrase ? ["holds phrase"] : []),
    ...(withF1 ? ["token F1"] : []),
    "answer tokens",
    ...(withCitations ? ["citations", "cited from relevant", "unsupported"] : []),
    ...judgeNames.map((name) => `${name} (fail)`),
    "errors",
    "LLM calls",
    "prompt tokens",
    "completion tokens",
    "cost (USD)",
    "time (sum)",
    "",
  ];
  const rows = [header];
  for (const mode of report.modes) {
    const best = report.best?.mode === mode.mode;
    rows.push([
      mode.mode,
      ...(withPhrase ? [`${share(mode.phraseShare)} of ${mode.phraseQuestions}`] : []),
      ...(withF1 ? [fixed(mode.meanF1)] : []),
      mode.meanAnswerTokens.toFixed(0),
      ...(withCitations
        ? [
            mode.citations ? formatCount(mode.citations.citations) : "–",
            share(mode.citations?.precision),
            share(mode.citations?.unsupportedShare),
          ]
        : []),
      ...judgeNames.map((name) => judgeCell(mode, name)),
      String(mode.errors),
      formatCount(mode.usage.calls),
      formatCount(mode.usage.promptTokens),
      formatCount(mode.usage.completionTokens),
      mode.dollars === undefined ? "–" : formatUsd(mode.dollars),
      formatDuration(mode.wallMs),
      best ? style.green("★ best") : "",
    ]);
  }
  const lines = [retrievalLine(report), "", ...textTable(rows, style.bold), ""];
  if (withCitations) {
    lines.push(
      style.dim(
        "Citations: valid [N] markers; cited from relevant: the share whose piece comes from a file the question names; unsupported: the share their piece does not support.",
      ),
    );
  }
  lines.push(style.dim(bestNote(report)));
  lines.push(
    style.dim(
      "time (sum): each answer's synthesis time added up; concurrent questions overlap, so it is not the wall clock.",
    ),
  );
  if (report.model === "extractive" && report.prices === undefined) {
    lines.push(
      style.dim(
        "Offline: the extractive answerer costs nothing; the token columns show what a model would be sent.",
      ),
    );
  } else if (report.prices === undefined) {
    lines.push(
      style.dim(
        `No price known for ${report.model}: pass --price-in/--price-out (USD per 1M tokens) for dollars.`,
      ),
    );
  }
  return `${lines.join("\n")}\n`;
}

function judgeCell(mode: ModeSummary, name: string): string {
  const summary = mode.judges?.[name];
  if (!summary) return "–";
  return `${share(summary.passRate)} (${summary.failures})`;
}

/** What the ★ means for this run. */
export function bestNote(report: EvalReport): string {
  const best = report.best;
  if (!best)
    return "★ none: no mode has quality above 0 to weigh against its cost (label questions with answer_hint or reference).";
  const metric = report.modes.find((mode) => mode.mode === best.mode)?.qualityMetric ?? "phrase";
  const quality =
    metric === "phrase" ? "phrase share" : metric === "f1" ? "token F1" : "correctness pass rate";
  return best.costUnit === "dollars"
    ? `★ best ${quality} per dollar.`
    : `★ best ${quality} per 1,000 tokens (prompt + completion): without prices for every mode, or at $0 (offline), tokens stand in for dollars.`;
}
