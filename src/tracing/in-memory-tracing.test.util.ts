// Test util (not shipped): the real OpenTelemetry SDK with an in-memory exporter and async context.
import { context, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

export interface InMemoryTracing {
  tracer: Tracer;
  /** Finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** The finished span with this name (the first one). */
  byName(name: string): ReadableSpan;
  /** The finished children of `parent`, in start order. */
  childrenOf(parent: ReadableSpan): ReadableSpan[];
  shutdown(): Promise<void>;
}

/** A real `BasicTracerProvider` exporting to memory, with the async-hooks context manager enabled globally. */
export function createInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const spans = () => exporter.getFinishedSpans();
  const startOrder = (a: ReadableSpan, b: ReadableSpan) =>
    a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1];
  return {
    tracer: provider.getTracer("ragsynth-test"),
    spans,
    byName(name) {
      const found = spans().find((span) => span.name === name);
      if (!found)
        throw new Error(
          `no span named ${name}; got ${spans()
            .map((span) => span.name)
            .join(", ")}`,
        );
      return found;
    },
    childrenOf(parent) {
      return spans()
        .filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId)
        .sort(startOrder);
    },
    async shutdown() {
      await provider.shutdown();
      context.disable();
    },
  };
}
