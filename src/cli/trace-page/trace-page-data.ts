import { scrubSecrets } from "../../errors/scrub-secrets.js";
import type { LLMCallStep, RagsynthEvent } from "../../events/events.js";
import { assignLanes, roundOf, stepLabel } from "./call-layout.js";
import { type AnswerPart, citedAnswerParts, type PageCitation } from "./cited-answer.js";

type Timed<E> = E & { atMs: number };
type CallStart = Extract<RagsynthEvent, { type: "llm-call-start" }>;
type CallEnd = Extract<RagsynthEvent, { type: "llm-call-end" }>;

/** A source chunk as the page lists it. */
export interface PageSource {
  /** The node's id: the calls' events name the nodes the packer put in them by it. */
  id?: string | undefined;
  name: string;
  text: string;
  score?: number | undefined;
  /** Its place as people read it: `guide.md:120–168 › Configuration › Timeouts`. */
  location?: string | undefined;
  /** A `file:` URL of the source file (with `#L<line>` when the line is known); other schemes are dropped. */
  href?: string | undefined;
}

/** A wait before a retried attempt (a 429's `Retry-After`, or backoff after a 5xx). */
export interface PageRetryWait {
  atMs: number;
  delayMs: number;
  /** The failure that was retried: an error code, with the HTTP status when there was one. */
  reason: string;
}

/** Who counted a call's tokens: the server (its reported usage) or ragsynth (the budget's tokenizer). */
export type TokenCounter = "server" | "ragsynth";

/** One model call on the page. */
export interface PageCall {
  id: number;
  label: string;
  step: LLMCallStep;
  /** Tree level (0 = leaves) or refine step; 0 for single-round modes. */
  round: number;
  startMs: number;
  endMs: number;
  /** Timeline row: calls in flight at once get different lanes. */
  lane: number;
  /** The prompt's tokens: the server's count when it reported one (see `promptCountedBy`), else ragsynth's. */
  promptTokens: number;
  promptCountedBy: TokenCounter;
  /** ragsynth's own count of the prompt, made before the call was sent (what the budget checked). */
  countedPromptTokens: number;
  contextTokens: number;
  completionTokens: number;
  completionCountedBy: TokenCounter;
  /**
   * Tokens by which the prompt (the larger of the two counts) plus the `numOutput` reserved for the answer
   * went over the context window; absent when the call fit.
   */
  overWindowBy?: number;
  retries: number;
  error?: string;
  querySatisfied?: boolean;
  /** Indexes of the sources the packer put in this call (from the start event's `nodeIds`). */
  sources: number[];
  /** Ids of earlier calls whose answers this call read (from the start event's `inputCallIds`). */
  inputs: number[];
  /** The context pieces, as read (scrubbed, shortened). */
  context: string;
  answer: string;
}

/** Everything the trace page draws, JSON-safe and scrubbed of secrets. */
export interface TracePageData {
  query: string;
  mode: string;
  model: string;
  contextWindow: number;
  numOutput: number;
  answer: string;
  /** Milliseconds from the start of the synthesis to the last event (the timeline's width). */
  totalMs: number;
  usage: { llmCalls: number; promptTokens: number; completionTokens: number; retries: number };
  /** Who counted the totals' prompt tokens: `mixed` when the server reported usage for some calls only. */
  usageCountedBy: TokenCounter | "mixed";
  calls: PageCall[];
  sources: Array<PageSource & { calls: number[] }>;
  waits: PageRetryWait[];
  /** The answer cut at its citation markers (a cited answer only): the page links each to its source. */
  answerParts?: AnswerPart[];
}

const SNIPPET = 1200;

function clip(text: string, limit = SNIPPET): string {
  // Scrub a little more than is shown, not the whole text: a call's context can be long and there are many.
  const head = text.length > limit * 2 ? text.slice(0, limit * 2) : text;
  const clean = scrubSecrets(head);
  return clean.length > limit ? `${clean.slice(0, limit - 1)}…` : clean;
}

/** Pairs each call's start with its end: by `callId`, else (events built by hand) by step, in order. */
function startOf(starts: Map<string, Timed<CallStart>[]>, end: CallEnd): Timed<CallStart> | undefined {
  const key = end.callId ?? JSON.stringify(end.step);
  const queue = starts.get(key);
  return queue?.shift();
}

function counter(reported: number | undefined): TokenCounter {
  return reported === undefined ? "ragsynth" : "server";
}

/**
 * The page's data from the events of one query (as the CLI's event log keeps them, with `atMs`), the answer's
 * sources and the retry waits. Pairs each call's start and end; what each call read is what its start event
 * recorded (the packer's `nodeIds`, the answers' `inputCallIds`), found by id: linear in events and sources.
 */
export function buildTracePageData({
  events,
  sources,
  waits = [],
  query,
  answer,
  model,
  contextWindow,
  numOutput,
  citations,
}: {
  events: ReadonlyArray<RagsynthEvent & { atMs: number }>;
  /** The answer's citations; `source` N is `sources[N - 1]`. */
  citations?: readonly PageCitation[] | undefined;
  sources: readonly PageSource[];
  waits?: readonly PageRetryWait[];
  query: string;
  answer: string;
  model: string;
  contextWindow: number;
  numOutput: number;
}): TracePageData {
  // The page's clock starts with the synthesis (retrieval and indexing come before it).
  const origin = events.find((event) => event.type === "synthesize-start")?.atMs ?? 0;
  const starts = new Map<string, Timed<CallStart>[]>();
  const calls: PageCall[] = [];
  const sourceByNode = new Map<string, number>();
  for (const [index, source] of sources.entries()) {
    if (source.id !== undefined && !sourceByNode.has(source.id)) sourceByNode.set(source.id, index);
  }
  const callByEventId = new Map<string, number>();
  const callsOfSource: number[][] = sources.map(() => []);
  for (const event of events) {
    if (event.type === "llm-call-start") {
      const key = event.callId ?? JSON.stringify(event.step);
      const queue = starts.get(key);
      if (queue) queue.push(event as Timed<CallStart>);
      else starts.set(key, [event as Timed<CallStart>]);
    }
    if (event.type !== "llm-call-end") continue;
    const end = event as Timed<CallEnd>;
    const start = startOf(starts, end);
    const id = calls.length;
    if (end.callId !== undefined) callByEventId.set(end.callId, id);
    const read = [...new Set((start?.nodeIds ?? []).flatMap((node) => sourceByNode.get(node) ?? []))];
    for (const index of read) callsOfSource[index]?.push(id);
    const countedPromptTokens = start?.promptTokens ?? end.promptTokens;
    const overBy = Math.max(countedPromptTokens, end.promptTokens) + numOutput - contextWindow;
    calls.push({
      id,
      label: stepLabel(end.step),
      step: end.step,
      round: roundOf(end.step),
      startMs: Math.max(0, end.atMs - end.latencyMs - origin),
      endMs: Math.max(0, end.atMs - origin),
      lane: 0,
      promptTokens: end.promptTokens,
      promptCountedBy: counter(end.usage?.promptTokens),
      countedPromptTokens,
      contextTokens: start?.contextTokens ?? 0,
      completionTokens: end.completionTokens,
      completionCountedBy: counter(end.usage?.completionTokens),
      ...(overBy > 0 ? { overWindowBy: overBy } : {}),
      retries: end.usage?.retries ?? 0,
      ...(end.error === undefined
        ? {}
        : { error: clip(end.error instanceof Error ? end.error.message : String(end.error), 300) }),
      ...(end.querySatisfied === undefined ? {} : { querySatisfied: end.querySatisfied }),
      sources: read,
      inputs: (start?.inputCallIds ?? []).flatMap((callId) => callByEventId.get(callId) ?? []),
      context: clip(start?.context ?? ""),
      answer: clip(end.text ?? "", 600),
    });
  }
  assignLanes(calls);
  const shifted = waits.map((wait) => ({ ...wait, atMs: Math.max(0, wait.atMs - origin) }));
  const synthesisEnd = events.find((event) => event.type === "synthesize-end");
  const usage = synthesisEnd?.type === "synthesize-end" ? synthesisEnd.usage : undefined;
  let lastMs = 0;
  for (const event of events) lastMs = Math.max(lastMs, event.atMs - origin);
  for (const wait of shifted) lastMs = Math.max(lastMs, wait.atMs + wait.delayMs);
  const byServer = calls.filter((call) => call.promptCountedBy === "server").length;
  return {
    query: clip(query, 2000),
    mode: synthesisEnd?.type === "synthesize-end" ? synthesisEnd.mode : "",
    model,
    contextWindow,
    numOutput,
    answer: clip(answer, 4000),
    ...(citations
      ? { answerParts: citedAnswerParts(answer, citations, (text) => clip(text, 4000), 4000) }
      : {}),
    totalMs: lastMs,
    usage: usage ?? { llmCalls: calls.length, promptTokens: 0, completionTokens: 0, retries: 0 },
    usageCountedBy: byServer === 0 ? "ragsynth" : byServer === calls.length ? "server" : "mixed",
    calls,
    sources: sources.map((source, index) => ({
      ...(source.id === undefined ? {} : { id: clip(source.id, 200) }),
      name: clip(source.name, 200),
      text: clip(source.text, 600),
      ...(source.score === undefined ? {} : { score: source.score }),
      ...(source.location ? { location: clip(source.location, 300) } : {}),
      ...(source.href?.startsWith("file:") ? { href: clip(source.href, 2000) } : {}),
      calls: callsOfSource[index] ?? [],
    })),
    waits: shifted.map((wait) => ({ ...wait, reason: clip(wait.reason, 120) })),
  };
}
