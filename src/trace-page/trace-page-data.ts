import { scrubSecrets } from "../errors/scrub-secrets.js";
import type { LLMCallStep, RagsynthEvent } from "../events/events.js";
import { type AnswerPart, citedAnswerParts, type PageCitation } from "./cited-answer.js";

type Timed<E> = E & { atMs: number };
type CallStart = Extract<RagsynthEvent, { type: "llm-call-start" }>;
type CallEnd = Extract<RagsynthEvent, { type: "llm-call-end" }>;

/** A source chunk as the page lists it. */
export interface PageSource {
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
  promptTokens: number;
  contextTokens: number;
  completionTokens: number;
  retries: number;
  error?: string;
  querySatisfied?: boolean;
  /** Indexes of the sources whose text this call read. */
  sources: number[];
  /** Ids of earlier calls whose answers this call read (a tree level above, a refine step). */
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
  calls: PageCall[];
  sources: Array<PageSource & { calls: number[] }>;
  waits: PageRetryWait[];
  /** The answer cut at its citation markers (a cited answer only): the page links each to its source. */
  answerParts?: AnswerPart[];
}

const SNIPPET = 1200;

function clip(text: string, limit = SNIPPET): string {
  const clean = scrubSecrets(text);
  return clean.length > limit ? `${clean.slice(0, limit - 1)}…` : clean;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** True when a piece of `text` appears in `context`: pieces of 60 characters, so split chunks still match. */
function reaches(text: string, context: string): boolean {
  const needle = normalize(text);
  if (needle === "") return false;
  const size = Math.min(60, needle.length);
  for (let start = 0; start + size <= needle.length; start += size) {
    if (context.includes(needle.slice(start, start + size))) return true;
  }
  return false;
}

function stepLabel(step: LLMCallStep): string {
  switch (step.kind) {
    case "tree":
      return step.count === 1
        ? `root (level ${step.level})`
        : `L${step.level} #${step.index + 1}/${step.count}`;
    case "accumulate":
    case "rerank":
      return `${step.kind} ${step.index + 1}/${step.count}`;
    case "refine":
      return `refine ${step.index}`;
    case "answer":
      return step.index === 0 ? "answer" : `answer ${step.index}`;
    case "custom":
      return step.name;
    default:
      return step.kind;
  }
}

function roundOf(step: LLMCallStep): number {
  if ("level" in step) return step.level;
  if (step.kind === "refine" || step.kind === "answer") return step.index;
  return 0;
}

/** Gives each call the first lane free at its start, so overlapping calls stack (concurrency made visible). */
function assignLanes(calls: PageCall[]): void {
  const laneEnds: number[] = [];
  for (const call of [...calls].sort((a, b) => a.startMs - b.startMs)) {
    let lane = laneEnds.findIndex((end) => end <= call.startMs);
    if (lane === -1) lane = laneEnds.length;
    laneEnds[lane] = call.endMs;
    call.lane = lane;
  }
}

/**
 * The page's data from the events of one query (as the CLI's event log keeps them, with `atMs`), the answer's
 * sources and the retry waits. Pairs each call's start and end by step; finds the sources each call read by
 * matching their text in its context, and the earlier answers it read the same way.
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
  const normalizedSources = sources.map((source) => normalize(source.text));
  for (const event of events) {
    if (event.type === "llm-call-start") {
      const key = JSON.stringify(event.step);
      starts.set(key, [...(starts.get(key) ?? []), event as Timed<CallStart>]);
    }
    if (event.type !== "llm-call-end") continue;
    const end = event as Timed<CallEnd>;
    const start = starts.get(JSON.stringify(end.step))?.shift();
    const context = normalize(start?.context ?? "");
    const id = calls.length;
    calls.push({
      id,
      label: stepLabel(end.step),
      step: end.step,
      round: roundOf(end.step),
      startMs: Math.max(0, end.atMs - end.latencyMs - origin),
      endMs: Math.max(0, end.atMs - origin),
      lane: 0,
      promptTokens: end.promptTokens,
      contextTokens: start?.contextTokens ?? 0,
      completionTokens: end.completionTokens,
      retries: end.usage?.retries ?? 0,
      ...(end.error === undefined
        ? {}
        : { error: clip(end.error instanceof Error ? end.error.message : String(end.error), 300) }),
      ...(end.querySatisfied === undefined ? {} : { querySatisfied: end.querySatisfied }),
      sources: normalizedSources.flatMap((text, index) => (reaches(text, context) ? [index] : [])),
      inputs: calls.flatMap((earlier) =>
        earlier.answer !== "" && reaches(earlier.answer, context) ? [earlier.id] : [],
      ),
      context: clip(start?.context ?? ""),
      answer: clip(end.text ?? "", 600),
    });
  }
  assignLanes(calls);
  const shifted = waits.map((wait) => ({ ...wait, atMs: Math.max(0, wait.atMs - origin) }));
  const synthesisEnd = events.find((event) => event.type === "synthesize-end");
  const usage = synthesisEnd?.type === "synthesize-end" ? synthesisEnd.usage : undefined;
  const lastMs = Math.max(
    0,
    ...events.map((event) => event.atMs - origin),
    ...shifted.map((wait) => wait.atMs + wait.delayMs),
  );
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
    calls,
    sources: sources.map((source, index) => ({
      name: clip(source.name, 200),
      text: clip(source.text, 600),
      ...(source.score === undefined ? {} : { score: source.score }),
      ...(source.location ? { location: clip(source.location, 300) } : {}),
      ...(source.href?.startsWith("file:") ? { href: clip(source.href, 2000) } : {}),
      calls: calls.filter((call) => call.sources.includes(index)).map((call) => call.id),
    })),
    waits: shifted.map((wait) => ({ ...wait, reason: clip(wait.reason, 120) })),
  };
}
