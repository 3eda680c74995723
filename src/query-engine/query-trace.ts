import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";

/** A started span and the context that makes it the parent of spans started inside it. */
export interface ActiveSpan {
  span: Span;
  context: Context;
  /** Runs `fn` with this span as the active parent (so synthesizer spans nest under it). */
  run<R>(fn: () => R): R;
  end(error?: unknown): void;
}

/** Starts a child of the active span. Spans carry counts and names, never query or node text. */
export function startSpan(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  parent?: Context,
): ActiveSpan {
  const parentContext = parent ?? context.active();
  const span = tracer.startSpan(name, { attributes }, parentContext);
  const spanContext = trace.setSpan(parentContext, span);
  return {
    span,
    context: spanContext,
    run: (fn) => context.with(spanContext, fn),
    end(error) {
      if (error !== undefined) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
      }
      span.end();
    },
  };
}
