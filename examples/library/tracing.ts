// OpenTelemetry spans by the GenAI conventions: register an SDK, run a synthesis, read the spans.
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { getResponseSynthesizer, TextNode } from "ragsynth";
import { MockLLM } from "ragsynth/testing";

export async function main() {
  // In production: new OTLPTraceExporter({ url, headers }) from @opentelemetry/exporter-trace-otlp-http (see README).
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  try {
    const llm = new MockLLM({ response: "Paris.", model: "gpt-4o-mini", isChatModel: true });
    const synthesizer = getResponseSynthesizer({ llm, responseMode: "tree_summarize" });
    await synthesizer.synthesize({
      query: "What is the capital of France?",
      nodes: [{ node: new TextNode({ text: "Paris is the capital of France." }) }],
    });
    const spans = exporter.getFinishedSpans();
    for (const span of spans) console.log(span.name, span.attributes["gen_ai.usage.output_tokens"] ?? "");
    // chat gpt-4o-mini 1
    // ragsynth.synthesize
    return spans;
  } finally {
    trace.disable();
    await provider.shutdown();
  }
}
