import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/prompt-helper.js";
import { OpenAILike } from "../openai/openai-like.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { nodesOf, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const startFakeServer = fakeServersClosedAfterEach();
let receiver: Server | undefined;
afterEach(async () => {
  receiver?.close();
  receiver = undefined;
});

/** A local OTLP/HTTP receiver on 127.0.0.1 that keeps each POSTed body. */
async function startReceiver(): Promise<{
  url: string;
  bodies: Array<{ path: string; type: string; json: unknown }>;
}> {
  const bodies: Array<{ path: string; type: string; json: unknown }> = [];
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      bodies.push({
        path: request.url ?? "",
        type: request.headers["content-type"] ?? "",
        json: JSON.parse(Buffer.concat(chunks).toString("utf8")),
      });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  const { port } = receiver.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/traces`, bodies };
}

type OtlpValue = { stringValue?: string; intValue?: string | number; arrayValue?: { values: OtlpValue[] } };
type OtlpSpan = {
  name: string;
  kind: number;
  spanId: string;
  parentSpanId?: string;
  attributes: Array<{ key: string; value: OtlpValue }>;
};

function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((item) => item.key === key)?.value;
  if (!value) return undefined;
  if (value.arrayValue) return value.arrayValue.values.map((item) => item.stringValue);
  return value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue));
}

describe("ragsynth spans through the real OTLP/HTTP JSON exporter", () => {
  it("a tree_summarize run against the fake OpenAI server arrives as OTLP JSON with GenAI attributes", async () => {
    const { url, bodies } = await startReceiver();
    const exporter = new OTLPTraceExporter({ url });
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    // The second request gets a 429 first: its span shows the retry.
    const server = await startFakeServer({
      handler: () => ({ text: "A short summary." }),
      faults: [{ kind: "status", status: 429, headers: { "retry-after-ms": "1" }, requests: [1] }],
    });
    const llm = new OpenAILike({
      model: "gpt-4o-mini",
      baseURL: server.url,
      apiKey: "sk-test-key-not-real-123",
    });
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "tree_summarize",
      promptHelper: new PromptHelper({ contextWindow: 300, numOutput: 40 }),
      tracer: provider.getTracer("ragsynth"),
    });
    const response = await synthesizer.synthesize({
      query: "What do the notes say?",
      nodes: nodesOf(words(120, "a"), words(120, "b")),
    });
    await provider.forceFlush();
    await provider.shutdown();

    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.every((body) => body.path === "/v1/traces" && body.type.includes("application/json"))).toBe(
      true,
    );
    const spans = bodies.flatMap((body) =>
      (
        body.json as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }
      ).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
    );
    const root = spans.find((span) => span.name === "ragsynth.synthesize") as OtlpSpan;
    const calls = spans.filter((span) => span.parentSpanId === root.spanId);
    expect(calls).toHaveLength(response.usage.llmCalls);
    expect(calls.length).toBeGreaterThanOrEqual(3); // two leaves and a root at least
    for (const call of calls) {
      expect(call.name).toBe("chat gpt-4o-mini");
      expect(call.kind).toBe(3); // SPAN_KIND_CLIENT in OTLP
      expect(attribute(call, "gen_ai.operation.name")).toBe("chat");
      expect(attribute(call, "gen_ai.provider.name")).toBe("openai");
      expect(attribute(call, "gen_ai.request.model")).toBe("gpt-4o-mini");
      expect(attribute(call, "gen_ai.request.max_tokens")).toBe(40);
      expect(attribute(call, "gen_ai.response.finish_reasons")).toEqual(["stop"]);
      expect(attribute(call, "gen_ai.usage.input_tokens")).toEqual(expect.any(Number));
      expect(attribute(call, "ragsynth.mode")).toBe("tree_summarize");
    }
    expect(
      calls.map((call) => attribute(call, "ragsynth.retries")).reduce((a, b) => Number(a) + Number(b)),
    ).toBe(1);
    const payload = JSON.stringify(bodies);
    expect(payload).not.toContain("sk-test-key-not-real-123");
    expect(payload).not.toContain("What do the notes say?"); // no content capture by default
  });
});
