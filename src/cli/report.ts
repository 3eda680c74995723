import { writeFile } from "node:fs/promises";
import type { EventLog } from "../events/event-log.js";
import type { ModePlan } from "../plan/plan-modes.js";
import { sourceHref, sourceLabel, sourceName } from "../schema/node-source.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { errorType } from "../tracing/start-span.js";
import type { RetryEvent } from "../util/retry.js";
import {
  buildTracePageData,
  type PageCitation,
  type PageRetryWait,
  renderPlanPage,
  renderTracePage,
} from "./trace-page/index.js";

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

/** Writes the trace page of one `ask` to `path`. */
export async function writeAskReport(
  path: string,
  {
    log,
    waits,
    sources,
    query,
    answer,
    model,
    contextWindow,
    numOutput,
    citations,
    redact = (text) => text,
  }: {
    redact?: ((text: string) => string) | undefined;
    /** A cited answer's citations, by source number (`sources` are then the numbered pieces, in order). */
    citations?: PageCitation[] | undefined;
    log: EventLog;
    waits: readonly PageRetryWait[];
    sources: readonly NodeWithScore[];
    query: string;
    answer: string;
    model: string;
    contextWindow: number;
    numOutput: number;
  },
): Promise<void> {
  const data = buildTracePageData({
    events: log.events,
    waits,
    sources: sources.map((source) => ({
      id: source.node.id,
      name: sourceName(source.node),
      text: source.node.text,
      score: source.score,
      location: sourceLabel(source.node),
      href: sourceHref(source.node),
    })),
    query,
    answer,
    model,
    contextWindow,
    numOutput,
    citations,
  });
  await writeFile(path, redact(renderTracePage(data)), "utf8");
}

/** Writes the plan page (every mode side by side as bars) to `path`. */
export async function writePlanReport(
  path: string,
  {
    plans,
    chunks,
    query,
    model,
    contextWindow,
    numOutput,
    redact = (text) => text,
  }: {
    redact?: ((text: string) => string) | undefined;
    plans: readonly ModePlan[];
    chunks: Array<{ name: string; tokens: number }>;
    query: string;
    model: string;
    contextWindow: number;
    numOutput: number;
  },
): Promise<void> {
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
  const html = renderPlanPage({ query, model, contextWindow, numOutput, chunks, modes });
  await writeFile(path, redact(html), "utf8");
}
