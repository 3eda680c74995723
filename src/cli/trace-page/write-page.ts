import { writeFile } from "node:fs/promises";
import type { CitationReport } from "../../citations/check-citations.js";
import { citationSourceRows } from "../../citations/citation-source.js";
import { supportText } from "../../citations/citation-support.js";
import type { EventLog } from "../../events/event-log.js";
import type { ModePlan } from "../../plan/plan-modes.js";
import { sourceHref, sourceLabel, sourceName } from "../../schema/node-source.js";
import type { SynthesisResponse } from "../../synthesizer/types.js";
import { errorType } from "../../tracing/start-span.js";
import type { RetryEvent } from "../../util/retry.js";
import type { PageCitation } from "./cited-answer.js";
import { renderPlanPage } from "./render-plan-page.js";
import { renderTracePage } from "./render-trace-page.js";
import { buildTracePageData, type PageRetryWait } from "./trace-page-data.js";

/** Keeps each retry wait on the event log's clock, for the trace page's timeline. */
export function recordRetryWaits(log: EventLog): {
  waits: PageRetryWait[];
  onRetry: (event: RetryEvent) => void;
} {
  const waits: PageRetryWait[] = [];
  return {
    waits,
    onRetry: ({ delayMs, error }) => {
      const reason = `${error.status === undefined ? "" : `${error.status} `}${errorType(error)}`;
      waits.push({ atMs: log.elapsedMs(), delayMs: Math.round(delayMs), reason });
    },
  };
}

/** What both pages show in their heading, and how their text is scrubbed before it is written. */
interface PageHeading {
  /** Scrubs the page of secrets before it is written. @default none */
  redact?: ((text: string) => string) | undefined;
  query: string;
  model: string;
  contextWindow: number;
  numOutput: number;
}

/**
 * Writes the trace page of one `ask` to `path`. A cited answer's sources are its numbered pieces, in order, so
 * the page's source N is the answer's [N].
 */
export async function writeAskReport(
  path: string,
  page: PageHeading & {
    log: EventLog;
    waits: readonly PageRetryWait[];
    response: SynthesisResponse & { citations?: CitationReport | undefined };
  },
): Promise<void> {
  const { log, response, redact = (text) => text, ...shown } = page;
  const { citations } = response;
  const sources = citations ? citationSourceRows(citations.sources) : response.sourceNodes;
  const data = buildTracePageData({
    ...shown,
    answer: response.response,
    citations: citations ? citationsForPage(citations) : undefined,
    events: log.events,
    sources: sources.map((source) => ({
      id: source.node.id,
      name: sourceName(source.node),
      text: source.node.text,
      score: source.score,
      location: sourceLabel(source.node),
      href: sourceHref(source.node),
    })),
  });
  await writeFile(path, redact(renderTracePage(data)), "utf8");
}

/** The citations as the trace page links them to its sources (the numbered pieces). */
function citationsForPage(report: CitationReport): PageCitation[] {
  return report.citations.map((citation) => ({
    offset: citation.offset,
    marker: citation.marker,
    source: citation.sourceNumber,
    unsupported: !citation.support.supported,
    score: supportText(citation.support),
  }));
}

/** Writes the plan page (every mode side by side as bars) to `path`. */
export async function writePlanReport(
  path: string,
  page: PageHeading & { plans: readonly ModePlan[]; chunks: Array<{ name: string; tokens: number }> },
): Promise<void> {
  const { plans, redact = (text) => text, ...shown } = page;
  const modes = plans.map((plan) => {
    const failure = plan.scenarios.find((scenario) => scenario.error)?.error;
    return {
      mode: plan.mode,
      llmCalls: plan.llmCalls,
      promptTokens: plan.promptTokens,
      ...(plan.costUsd ? { costUsd: plan.costUsd } : {}),
      ...(failure ? { error: `fails: ${failure.message}` } : {}),
    };
  });
  await writeFile(path, redact(renderPlanPage({ ...shown, modes })), "utf8");
}
