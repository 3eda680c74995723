import type { RagsynthEvent } from "./events.js";

/** The events of one query, kept in order, with a clock reading for each. */
export interface EventLog {
  readonly events: Array<RagsynthEvent & { atMs: number }>;
  readonly handler: (event: RagsynthEvent) => void;
  /** Milliseconds since the log started, on the same clock as `atMs`. */
  readonly elapsedMs: () => number;
}

export function createEventLog(now: () => number = performance.now.bind(performance)): EventLog {
  const origin = now();
  const events: EventLog["events"] = [];
  const elapsedMs = () => Math.round(now() - origin);
  return { events, handler: (event) => events.push({ ...event, atMs: elapsedMs() }), elapsedMs };
}

/** An event made JSON-safe: errors become `{ name, code, message }` (never their causes or stacks). */
export function eventToJSON(event: RagsynthEvent & { atMs?: number }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) {
    // A call's context and answer text stay out of --json (the sources and the answer are there once).
    if (
      (event.type === "llm-call-start" && key === "context") ||
      (event.type === "llm-call-end" && key === "text")
    )
      continue;
    out[key] = key === "error" ? errorToJSON(value) : value;
  }
  return out;
}

export function errorToJSON(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, ...(typeof code === "string" ? { code } : {}), message: error.message };
  }
  return { message: String(error) };
}

/** Milliseconds spent retrieving, postprocessing and synthesizing, summed from a run's events. */
export function phaseTimings(events: readonly RagsynthEvent[]) {
  let retrieveMs = 0;
  let postprocessMs = 0;
  let synthesizeMs = 0;
  for (const event of events) {
    if (event.type === "retrieve-end") retrieveMs += event.durationMs;
    if (event.type === "postprocess-end") postprocessMs += event.durationMs;
    if (event.type === "synthesize-end") synthesizeMs += event.durationMs;
  }
  return {
    retrieveMs: Math.round(retrieveMs),
    postprocessMs: Math.round(postprocessMs),
    synthesizeMs: Math.round(synthesizeMs),
  };
}
