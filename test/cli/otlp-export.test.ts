import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterEach, describe, expect, it } from "vitest";
import { EXAMPLE_DOCS, runCli, TEST_API_KEY } from "./run-cli.js";

// `ragsynth ask` with OTEL_EXPORTER_OTLP_ENDPOINT set exports its spans to a local OTLP/HTTP receiver before it
// exits (the batch is flushed), nested: query → synthesize → one chat span per model call.
type OtlpSpan = {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
};

let receiver: Server | undefined;
let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  receiver?.close();
  receiver = undefined;
  await server?.close();
  server = undefined;
});

/** A local OTLP/HTTP receiver on 127.0.0.1 that keeps each POSTed body and its path. */
async function startReceiver(): Promise<{ url: string; bodies: Array<{ path: string; body: string }> }> {
  const bodies: Array<{ path: string; body: string }> = [];
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      bodies.push({ path: request.url ?? "", body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  const { port } = receiver.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, bodies };
}

function spansOf(bodies: Array<{ body: string }>): OtlpSpan[] {
  return bodies.flatMap(({ body }) =>
    (
      JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }
    ).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
  );
}

const stringAttribute = (span: OtlpSpan | undefined, key: string) =>
  span?.attributes.find((item) => item.key === key)?.value.stringValue;

describe("CLI export over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set", () => {
  it("sends the run's spans, nested, before it exits; the question and answer only with content capture", async () => {
    const { url, bodies } = await startReceiver();
    server = await startFakeOpenAIServer({ handler: () => ({ text: "Modes trade calls for context." }) });
    const query = "How do the response modes use the token budget?";
    const result = await runCli(
      [
        "ask",
        EXAMPLE_DOCS,
        "-q",
        query,
        "--llm",
        `${server.url}#fake-model`,
        "--mode",
        "tree_summarize",
        "--context-window",
        "800",
        "--num-output",
        "64",
        "--no-stream",
      ],
      {
        env: {
          OPENAI_API_KEY: TEST_API_KEY,
          OTEL_EXPORTER_OTLP_ENDPOINT: url,
          OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
        },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.every((item) => item.path === "/v1/traces")).toBe(true);
    const spans = spansOf(bodies);
    const root = spans.find((span) => span.name === "ragsynth.query");
    expect(root?.parentSpanId ?? "").toBe("");
    const synthesize = spans.find((span) => span.name === "ragsynth.synthesize");
    expect(synthesize?.parentSpanId).toBe(root?.spanId);
    const calls = spans.filter((span) => span.name === "chat fake-model");
    expect(calls.length).toBe(server.requests.length);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) expect(call.parentSpanId).toBe(synthesize?.spanId);
    expect(stringAttribute(root, "input.value")).toBe(query);
    expect(stringAttribute(root, "output.value")).toBe("Modes trade calls for context."); // the root call's answer
    expect(result.stdout).toContain("Modes trade calls for context.");
    expect(JSON.stringify(bodies)).not.toContain(TEST_API_KEY);
  }, 60_000);

  it("without content capture, no question or answer text leaves the process", async () => {
    const { url, bodies } = await startReceiver();
    server = await startFakeOpenAIServer({ handler: () => ({ text: "Modes trade calls for context." }) });
    const result = await runCli(
      [
        "ask",
        EXAMPLE_DOCS,
        "-q",
        "What is the token budget?",
        "--llm",
        `${server.url}#fake-model`,
        "--no-stream",
      ],
      { env: { OPENAI_API_KEY: TEST_API_KEY, OTEL_EXPORTER_OTLP_ENDPOINT: url } },
    );
    expect(result.code, result.stderr).toBe(0);
    const spans = spansOf(bodies);
    expect(spans.some((span) => span.name === "ragsynth.query")).toBe(true);
    const payload = JSON.stringify(bodies);
    expect(payload).not.toContain("token budget?");
    expect(payload).not.toContain("Modes trade calls");
  }, 60_000);
});
