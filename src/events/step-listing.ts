import { formatCount, formatDuration, plural } from "../util/format-numbers.js";
import type { LLMCallStep, RagsynthEvent, SynthesisUsage } from "./events.js";

/** How the listing marks headings, notes and failures (the CLI's colors, or plain text). */
export interface StepListingStyle {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
}

type EventOf<T extends RagsynthEvent["type"]> = Extract<RagsynthEvent, { type: T }>;

function stepLabel(step: LLMCallStep): string {
  switch (step.kind) {
    case "answer":
      return "answer";
    case "refine":
      return "refine";
    case "tree":
      return step.count === 1 ? "root" : `summary ${step.index + 1}/${step.count}`;
    case "accumulate":
      return `answer ${step.index + 1}/${step.count}`;
    case "rerank":
      return `rerank ${step.index + 1}/${step.count}`;
    case "custom":
      return step.name;
    default:
      return step.kind;
  }
}

function callLine(call: EventOf<"llm-call-end">, style: StepListingStyle): string {
  const tokens = `prompt ${formatCount(call.promptTokens)} → completion ${formatCount(call.completionTokens)}`;
  const flags = [
    call.querySatisfied === false ? style.yellow("not satisfied") : "",
    call.error !== undefined
      ? style.red(`failed: ${(call.error as Error)?.message ?? String(call.error)}`)
      : "",
  ].filter(Boolean);
  return `${tokens} · ${formatDuration(call.latencyMs)}${flags.length > 0 ? ` · ${flags.join(" · ")}` : ""}`;
}

function packLine(pack: EventOf<"pack">): string {
  const shown =
    pack.chunkTokens.length <= 8 ? pack.chunkTokens : [...pack.chunkTokens.slice(0, 7), Number.NaN];
  const list = shown.map((tokens) => (Number.isNaN(tokens) ? "…" : formatCount(tokens))).join(", ");
  const cut = pack.truncatedTokens ? ` · ${formatCount(pack.truncatedTokens)} tokens truncated` : "";
  return `packed into ${plural(pack.chunkTokens.length, "chunk")} [${list}] tokens (≤ ${formatCount(pack.availableChunkSize)} each)${cut}`;
}

function percentChange(before: number, after: number): string {
  if (before === 0) return "";
  const change = Math.round(((after - before) / before) * 100);
  return ` (${change > 0 ? "+" : change === 0 ? "±" : "−"}${Math.abs(change)}%)`;
}

/** The tree of a tree_summarize run, level by level: packing, then each call. */
function treeLines(events: RagsynthEvent[], style: StepListingStyle): string[] {
  const lines: string[] = [];
  const levels = new Map<number, { pack?: EventOf<"pack">; calls: EventOf<"llm-call-end">[] }>();
  const level = (n: number) => {
    let entry = levels.get(n);
    if (!entry) {
      entry = { calls: [] };
      levels.set(n, entry);
    }
    return entry;
  };
  for (const event of events) {
    if (event.type === "pack") level(event.round).pack = event;
    if (event.type === "llm-call-end" && event.step.kind === "tree")
      level(event.step.level).calls.push(event);
  }
  const ordered = [...levels.entries()].sort(([a], [b]) => a - b);
  for (const [n, { pack, calls }] of ordered) {
    const root = calls.length === 1 && calls[0]?.step.kind === "tree" && calls[0].step.count === 1;
    lines.push(`${style.bold(`level ${n}`)}${root ? " (root)" : ""}${pack ? `  ${packLine(pack)}` : ""}`);
    calls.sort(
      (a, b) => ((a.step as { index: number }).index ?? 0) - ((b.step as { index: number }).index ?? 0),
    );
    calls.forEach((call, index) => {
      const branch = index === calls.length - 1 ? "└─" : "├─";
      lines.push(`  ${branch} ${stepLabel(call.step).padEnd(14)} ${callLine(call, style)}`);
    });
  }
  return lines;
}

/** A chain (refine, compact, accumulate, …): the events in order, calls numbered. */
function chainLines(events: RagsynthEvent[], style: StepListingStyle): string[] {
  const lines: string[] = [];
  let number = 0;
  const calls = events.filter((event) => event.type === "llm-call-end").length;
  for (const event of events) {
    if (event.type === "pack") {
      lines.push(`${style.dim("pack")}  ${event.round > 0 ? `step ${event.round}: ` : ""}${packLine(event)}`);
    } else if (event.type === "llm-call-end") {
      number += 1;
      const connector = calls === 1 ? "─" : number === 1 ? "┌" : number === calls ? "└" : "├";
      lines.push(
        `${connector} ${String(number).padStart(2)}. ${stepLabel(event.step).padEnd(12)} ${callLine(event, style)}`,
      );
    }
  }
  return lines;
}

/**
 * The step listing of a run (`ragsynth ask --trace` prints it in the terminal): what happened, from the events: retrieval, each
 * postprocessor's tokens before and after, then the synthesis as a tree by level (tree_summarize) or as a chain
 * of steps (the other modes). Not the trace page (`--report`, HTML) nor OpenTelemetry spans (the tracer's).
 */
export function renderStepListing(events: readonly RagsynthEvent[], style: StepListingStyle): string {
  const lines: string[] = [style.bold("Trace:"), ...retrievalLines(events)];
  const synthesis = events.filter((event) => event.type === "pack" || event.type === "llm-call-end");
  const start = events.find(
    (event): event is EventOf<"synthesize-start"> => event.type === "synthesize-start",
  );
  const end = events.find((event): event is EventOf<"synthesize-end"> => event.type === "synthesize-end");
  if (start) lines.push(`  synthesize  ${start.mode} · ${plural(start.nodeCount, "chunk")} in`);
  const isTree = synthesis.some((event) => event.type === "llm-call-end" && event.step.kind === "tree");
  const body = isTree ? treeLines(synthesis, style) : chainLines(synthesis, style);
  if (body.length === 0) body.push(style.dim("no LLM calls"));
  lines.push(...body.map((line) => `    ${line}`));
  if (end) {
    lines.push(`  total       ${usageText(end.usage)} · ${formatDuration(end.durationMs)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The one summary line under an answer (`ask`): mode, LLM calls, prompt and completion tokens, retries, wall time, model. */
export function summaryLine({
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
  return `${mode} · ${usageText(usage)}${retries} · ${formatDuration(wallMs)} · ${model}`;
}

/** `3 LLM calls · 1,200 prompt + 180 completion tokens`. */
function usageText(usage: SynthesisUsage): string {
  return (
    `${plural(usage.llmCalls, "LLM call")} · ${formatCount(usage.promptTokens)} prompt + ` +
    `${formatCount(usage.completionTokens)} completion tokens`
  );
}

/** Chunks in which no sentence passed the optimizer's cutoffs, so it kept the best one (`onEmpty: "keep_best"`). */
export function fallbackCount(event: EventOf<"postprocess-end">): number {
  const nodes = event.detail?.nodes;
  if (!Array.isArray(nodes)) return 0;
  return nodes.filter((node) => (node as { fallback?: unknown }).fallback !== undefined).length;
}

/** Retrieval and each postprocessor's tokens before and after, one line each. */
export function retrievalLines(events: readonly RagsynthEvent[]): string[] {
  const lines: string[] = [];
  for (const event of events) {
    if (event.type === "retrieve-end") {
      lines.push(
        `  retrieve    ${plural(event.nodeCount, "chunk")} · ${formatCount(event.tokens)} tokens · ${formatDuration(event.durationMs)}`,
      );
    } else if (event.type === "postprocess-end") {
      const fallbacks = fallbackCount(event);
      const kept =
        fallbacks > 0
          ? ` · ${plural(fallbacks, "chunk")} kept only ${fallbacks === 1 ? "its" : "their"} best sentence`
          : "";
      lines.push(
        `  ${event.name}: ${formatCount(event.tokensBefore)} → ${formatCount(event.tokensAfter)} tokens` +
          `${percentChange(event.tokensBefore, event.tokensAfter)} · ${event.nodesBefore} → ${event.nodesAfter} chunks · ${formatDuration(event.durationMs)}${kept}`,
      );
    }
  }
  return lines;
}
