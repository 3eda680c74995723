import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "./cli/run-cli.js";

// The README's OTLP snippet, run as written (only its URL pointed at a local receiver and a query put where it
// says "your queries"), in a child process that ends on its own: the spans must arrive before it does.
let receiver: Server | undefined;
let script: string | undefined;
afterEach(async () => {
  receiver?.close();
  receiver = undefined;
  if (script) await rm(script, { force: true });
});

function readmeSnippet(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Tracing"));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error("README's Tracing section has no ts snippet");
  return match[1];
}

describe("README's OpenTelemetry snippet", () => {
  it("exports the spans of a query to an OTLP/HTTP receiver before the process ends", async () => {
    const bodies: string[] = [];
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        bodies.push(Buffer.concat(chunks).toString("utf8"));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    receiver.listen(0, "127.0.0.1");
    await once(receiver, "listening");
    const { port } = receiver.address() as AddressInfo;

    const snippet = readmeSnippet();
    expect(snippet).toContain("// … your queries …");
    const query = [
      `const { getResponseSynthesizer, TextNode } = await import(${JSON.stringify(pathToFileURL(join(ROOT, "src/index.ts")).href)});`,
      `const { MockLLM } = await import(${JSON.stringify(pathToFileURL(join(ROOT, "src/testing/index.ts")).href)});`,
      'const llm = new MockLLM({ response: "Paris.", model: "gpt-4o-mini", isChatModel: true });',
      'await getResponseSynthesizer({ llm, responseMode: "tree_summarize" }).synthesize({ query: "Capital?", nodes: [{ node: new TextNode({ text: "Paris is the capital." }) }] });',
    ].join("\n");
    const code = snippet
      .replace(/url: "https:\/\/cloud\.langfuse\.com[^"]*"/, `url: "http://127.0.0.1:${port}/v1/traces"`)
      .replace("// … your queries …", query);
    expect(code).toContain(`127.0.0.1:${port}`);
    const folder = join(ROOT, "test-artifacts");
    await mkdir(folder, { recursive: true });
    script = join(folder, `readme-otel-${process.pid}.mts`);
    await writeFile(script, code, "utf8");
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const [exitCode] = (await once(child, "exit")) as [number | null];
    expect(exitCode, stderr).toBe(0);

    const names = bodies.flatMap((body) =>
      (
        JSON.parse(body) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string }> }> }>;
        }
      ).resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name)),
      ),
    );
    expect(names).toEqual(expect.arrayContaining(["ragsynth.synthesize", "chat gpt-4o-mini"]));
  }, 60_000);
});
