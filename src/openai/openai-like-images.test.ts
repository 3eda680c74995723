import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../llm/types.js";
import { ImageNode } from "../schema/image-node.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { OpenAILike } from "./openai-like.js";

const startServer = fakeServersClosedAfterEach();
const png = pngOfSize(4, 3);
const dir = mkdtempSync(join(tmpdir(), "ragsynth-openai-img-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "photo.jpg"), Buffer.from([0xff, 0xd8, 0xff, 0xd9]));

const message: ChatMessage = {
  role: "user",
  content: "Look\n\n[image]",
  blocks: [
    { type: "text", text: "Look" },
    { type: "image", data: png, mediaType: "image/png", detail: "low" },
    { type: "image", path: join(dir, "photo.jpg") },
    { type: "image", url: "https://example.com/chart.webp", detail: "high" },
  ],
};

describe("OpenAILike with images", () => {
  it("sends image_url parts: data URLs for bytes and files, URLs as given, detail passed through", async () => {
    const server = await startServer({ handler: ({ images }) => `saw ${images.length}` });
    const llm = new OpenAILike({
      model: "vision",
      baseURL: server.url,
      apiKey: "sk-local",
      imageInput: "pixels",
    });
    expect((await llm.chat([message])).text).toBe("saw 3");
    const body = server.requests[0]?.body as { messages: Array<{ content: unknown }> };
    expect(body.messages[0]?.content).toEqual([
      { type: "text", text: "Look" },
      {
        type: "image_url",
        image_url: { url: `data:image/png;base64,${Buffer.from(png).toString("base64")}`, detail: "low" },
      },
      { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/2Q==" } },
      { type: "image_url", image_url: { url: "https://example.com/chart.webp", detail: "high" } },
    ]);
    expect(llm.metadata.assumptions).toContain(
      "image tokens of vision counted by OpenAI's rule; pass imageTokens if the server counts otherwise",
    );
  });

  it("sends only the text to a model that does not take pixels", async () => {
    const server = await startServer();
    const llm = new OpenAILike({ model: "text-only", baseURL: server.url, apiKey: "sk-local" });
    await llm.chat([message]);
    expect((server.requests[0]?.body as { messages?: unknown[] } | undefined)?.messages).toEqual([
      { role: "user", content: "Look\n\n[image]" },
    ]);
  });

  it("retries a rate-limited multimodal call with the same parts, and aborts a slow one", async () => {
    const server = await startServer({
      faults: [
        { kind: "rate-limit", retryAfterMs: 1, requests: [0] },
        { kind: "slow-first-byte", delayMs: 5000, requests: [2] },
      ],
    });
    const llm = new OpenAILike({
      model: "vision",
      baseURL: server.url,
      apiKey: "sk-local",
      imageInput: "pixels",
      _internal: { sleep: async () => {}, random: () => 0.5 },
    });
    const deltas: string[] = [];
    for await (const delta of llm.streamChat([message])) deltas.push(delta);
    expect(deltas.join("")).toBe("Look[image][image][image]");
    expect(server.requests.map((request) => request.fault)).toEqual(["rate-limit", undefined]);
    expect(server.requests[1]?.body).toEqual({
      ...(server.requests[0]?.body as object),
      stream: true,
      stream_options: { include_usage: true },
    });
    const controller = new AbortController();
    const pending = llm.chat([message], { signal: controller.signal });
    while (server.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect((await server.waitForClose(2, 200)).closedByClient).toBe(true);
  });

  it("carries a synthesis's images with correct media types, the text and images in node order", async () => {
    const server = await startServer({ handler: () => "A chart and a photo." });
    const llm = new OpenAILike({
      model: "vision",
      baseURL: server.url,
      apiKey: "sk-local",
      imageInput: "pixels",
    });
    const nodes = [
      { node: new TextNode({ text: "Quarterly report." }) },
      { node: new ImageNode({ image: png, text: "Sales chart" }) },
      { node: new ImageNode({ imagePath: join(dir, "photo.jpg"), detail: "low" }) },
    ];
    const response = await getResponseSynthesizer({ llm, responseMode: "compact" }).synthesize({
      query: "What is shown?",
      nodes,
    });
    expect(String(response)).toBe("A chart and a photo.");
    const record = server.requests[0]?.body as { messages: Array<{ role: string; content: unknown }> };
    expect(record.messages.map((entry) => entry.role)).toEqual(["system", "user"]);
    const parts = record.messages[1]?.content as Array<{
      type: string;
      text?: string;
      image_url?: { url: string };
    }>;
    expect(parts.map((part) => part.type)).toEqual([
      "text",
      "text",
      "text",
      "image_url",
      "image_url",
      "text",
    ]);
    expect(parts[1]?.text).toBe("Quarterly report.");
    expect(parts[2]?.text).toBe("Sales chart");
    expect(parts[3]?.image_url?.url.startsWith("data:image/png;base64,")).toBe(true);
    expect(parts[4]?.image_url?.url.startsWith("data:image/jpeg;base64,")).toBe(true);
    expect(parts[5]?.text).toContain("Query: What is shown?");
  });
});
