import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

// A module resolve hook (on the loader thread) posts every resolved URL back, so the probe can count, per
// package, the modules loaded at each step. Counts only, never times.
const hooks = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}`;

const probe = `
import { createRequire, register } from "node:module";
import { MessageChannel } from "node:worker_threads";
const { port1, port2 } = new MessageChannel();
const urls = [];
port1.on("message", (url) => urls.push(url));
port1.unref();
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hooks)}), { data: { port: port2 }, transferList: [port2] });
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
// ES modules come through the hook; CommonJS ones (gpt-tokenizer is required) sit in require's cache.
const loadedFiles = () => [...urls, ...Object.keys(createRequire(import.meta.url).cache)];
const count = (name) => loadedFiles().filter((url) => url.replaceAll("\\\\", "/").includes("/node_modules/" + name + "/")).length;
const counts = () => ({
  otel: count("@opentelemetry"),
  openai: count("openai"),
  tokenizer: count("gpt-tokenizer"),
  jsonStream: count("@streamparser/json"),
  zod: count("zod"),
  // Node's crypto module: ~6 ms to load, and only hashing (a cache key, a checksum) needs it.
  nodeCrypto: urls.filter((url) => url === "node:crypto").length,
});
const ragsynth = await import("./src/index.ts");
await settle();
const afterImport = counts();
const { MockLLM } = await import("./src/testing/index.ts");
const llm = new MockLLM({ response: "Paris." });
const synthesizer = ragsynth.getResponseSynthesizer({ llm, responseMode: "compact" });
const nodes = [{ node: new ragsynth.TextNode({ text: "Paris is the capital of France." }), score: 1 }];
await synthesizer.synthesize({ query: "What is the capital?", nodes });
await settle();
const afterUntracedRun = counts();
// An SDK registered globally: the default tracer now records, so the API loads and spans come out.
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
const { trace } = await import("@opentelemetry/api");
const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
await synthesizer.synthesize({ query: "What is the capital?", nodes });
console.log(JSON.stringify({ afterImport, afterUntracedRun, spans: exporter.getFinishedSpans().map((span) => span.name) }));
`;

describe("optional parts load lazily", () => {
  it("import('ragsynth') loads no optional module (OpenTelemetry, openai, tokenizer, JSON stream parser, zod, node:crypto); an untraced run no OpenTelemetry; a registered SDK still gets spans", () => {
    const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", probe], {
      cwd: root,
      encoding: "utf8",
    });
    const result = JSON.parse(output.trim().split("\n").at(-1) as string);
    expect(result.afterImport).toEqual({
      otel: 0,
      openai: 0,
      tokenizer: 0,
      jsonStream: 0,
      zod: 0,
      nodeCrypto: 0,
    });
    // The run counts tokens (the tokenizer loads) but traces nothing, so the OpenTelemetry API stays unloaded.
    expect(result.afterUntracedRun.otel).toBe(0);
    expect(result.afterUntracedRun.openai).toBe(0);
    expect(result.afterUntracedRun.tokenizer).toBeGreaterThan(0);
    expect(result.spans).toContain("ragsynth.synthesize");
  });
});
