import {
  type Attributes,
  type Context,
  context,
  type Span,
  type SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";

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
  span.setAttribute("error.type", errorType(error));
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
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
  { attributes = {}, kind }: { attributes?: Attributes; kind?: SpanKind } = {},
  parent?: Context,
): ActiveSpan {
  const parentContext = parent ?? context.active();
  const span = tracer.startSpan(
    name,
    kind === undefined ? { attributes } : { attributes, kind },
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

/** The tracer used when none is injected: `trace.getTracer("ragsynth")`, a no-op until an SDK is registered. */
export function defaultTracer(): Tracer {
  return trace.getTracer("ragsynth");
}
