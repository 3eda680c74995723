import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import { otelApi, prepareTracing } from "./otel-api.js";

/** A started span and the context that makes it the parent of spans started inside it. */
export interface ActiveSpan {
  span: Span;
  context: Context;
  /** Runs `fn` with this span as the active parent (so spans started inside nest under it). */
  run<R>(fn: () => R): R;
  /** Ends the span; with an error, records it (`error.type`, exception event, ERROR status) first. */
  end(error?: unknown): void;
}

/** The low-cardinality class of an error, as `error.type` wants it: a ragsynth code, else the error's name. */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code !== "") return code;
  return error instanceof Error ? error.name : "_OTHER";
}

/** Marks a span as failed: `error.type`, an exception event and an ERROR status with the message. */
export function recordSpanError(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  span.setAttribute("error.type", errorType(error));
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: otelApi()?.SpanStatusCode.ERROR ?? 2,
    message: error instanceof Error ? error.message : String(error),
  });
}

/**
 * Starts a child of `parent` (default: the active span): the one way ragsynth starts a span. Spans carry
 * counts and names; text only where the user opted in to content capture.
 */
export function startSpan(
  tracer: Tracer,
  name: string,
  { attributes = {}, kind }: { attributes?: Attributes; kind?: "client" } = {},
  parent?: Context,
): ActiveSpan {
  const api = otelApi();
  if (!api) return NOOP_ACTIVE_SPAN;
  const { context, trace } = api;
  const parentContext = parent ?? context.active();
  const span = tracer.startSpan(
    name,
    kind === undefined ? { attributes } : { attributes, kind: api.SpanKind.CLIENT },
    parentContext,
  );
  const spanContext = trace.setSpan(parentContext, span);
  return {
    span,
    context: spanContext,
    run: (fn) => context.with(spanContext, fn),
    end(error) {
      if (error !== undefined) recordSpanError(span, error);
      span.end();
    },
  };
}

const NOOP_SPAN: Span = {
  spanContext: () => ({
    traceId: "00000000000000000000000000000000",
    spanId: "0000000000000000",
    traceFlags: 0,
  }),
  setAttribute: () => NOOP_SPAN,
  setAttributes: () => NOOP_SPAN,
  addEvent: () => NOOP_SPAN,
  addLink: () => NOOP_SPAN,
  addLinks: () => NOOP_SPAN,
  setStatus: () => NOOP_SPAN,
  updateName: () => NOOP_SPAN,
  end: () => {},
  isRecording: () => false,
  recordException: () => {},
};

const EMPTY_CONTEXT: Context = {
  getValue: () => undefined,
  setValue: () => EMPTY_CONTEXT,
  deleteValue: () => EMPTY_CONTEXT,
};

/** What {@link startSpan} returns while tracing is off (no tracer given, no SDK registered). */
const NOOP_ACTIVE_SPAN: ActiveSpan = {
  span: NOOP_SPAN,
  context: EMPTY_CONTEXT,
  run: (fn) => fn(),
  end: () => {},
};

/**
 * The tracer used when none is injected: `trace.getTracer("ragsynth")` of the global provider, looked up when a
 * span starts (a no-op until an SDK is registered; `@opentelemetry/api` is not even loaded until then).
 */
const DEFAULT_TRACER: Tracer = {
  startSpan: (name, options, parent) =>
    otelApi()?.trace.getTracer("ragsynth").startSpan(name, options, parent) ?? NOOP_SPAN,
  startActiveSpan: ((name: string, ...rest: unknown[]) => {
    const api = otelApi();
    if (api)
      return (api.trace.getTracer("ragsynth").startActiveSpan as (...args: unknown[]) => unknown)(
        name,
        ...rest,
      );
    const fn = rest.at(-1) as (span: Span) => unknown;
    return fn(NOOP_SPAN);
  }) as Tracer["startActiveSpan"],
};

/** The tracer used when none is injected (see `DEFAULT_TRACER`). */
export function defaultTracer(): Tracer {
  return DEFAULT_TRACER;
}

/**
 * Loads what tracing with `tracer` needs before an entry point (synthesize, query, rerank) starts its spans:
 * nothing when it is the default tracer and no OpenTelemetry SDK is registered.
 */
export function prepareTracer(tracer: Tracer): Promise<void> {
  return prepareTracing(tracer !== DEFAULT_TRACER);
}
