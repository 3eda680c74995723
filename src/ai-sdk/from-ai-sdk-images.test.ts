import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../llm/types.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { type AiSdkCallArguments, fromAiSdk } from "./from-ai-sdk.js";

type FakeModel = { modelId: string };
const dir = mkdtempSync(join(tmpdir(), "ragsynth-aisdk-img-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// A real PNG: files are checked by their first bytes before they are sent.
const scan = pngOfSize(2, 2);
writeFileSync(join(dir, "scan.png"), scan);

function fakes() {
  const calls: AiSdkCallArguments<FakeModel>[] = [];
  return {
    calls,
    generateText: async (args: AiSdkCallArguments<FakeModel>) => {
      calls.push(args);
      return { text: "ok", usage: { inputTokens: 5, outputTokens: 1 } };
    },
    streamText: (args: AiSdkCallArguments<FakeModel>) => {
      calls.push(args);
      return {
        textStream: (async function* () {
          yield "ok";
        })(),
        usage: Promise.resolve({ inputTokens: 5, outputTokens: 1 }),
      };
    },
  };
}

const messages: ChatMessage[] = [
  { role: "system", content: "Be brief." },
  {
    role: "user",
    content: "See [image] [image] [image]",
    blocks: [
      { type: "text", text: "See" },
      { type: "image", data: new Uint8Array([9, 9]), mediaType: "image/png", detail: "low" },
      { type: "image", path: join(dir, "scan.png"), mediaType: "image/png" },
      { type: "image", url: "https://example.com/a.jpg" },
    ],
  },
];

describe("fromAiSdk with images", () => {
  it("sends AI SDK image parts: bytes with their media type (files read), URLs as URL, detail as an OpenAI option", async () => {
    const functions = fakes();
    const llm = fromAiSdk(
      { modelId: "gpt-4o" },
      { ...functions, imageInput: "pixels", systemField: "system" },
    );
    await llm.chat(messages);
    for await (const _ of llm.streamChat(messages)) void _;
    for (const call of functions.calls) {
      expect(call.system).toBe("Be brief.");
      expect(call.messages).toEqual([
        {
          role: "user",
          content: [
            { type: "text", text: "See" },
            {
              type: "image",
              image: new Uint8Array([9, 9]),
              mediaType: "image/png",
              providerOptions: { openai: { imageDetail: "low" } },
            },
            { type: "image", image: new Uint8Array(scan), mediaType: "image/png" },
            { type: "image", image: new URL("https://example.com/a.jpg") },
          ],
        },
      ]);
    }
    expect(llm.metadata.imageInput).toBe("pixels");
    // gpt-4o is in OpenAI's image table: its own rule applies through any provider, no assumption.
    expect(llm.metadata.imageTokens).toEqual({ kind: "openai", model: "gpt-4o" });
    expect(llm.metadata.assumptions ?? []).not.toContainEqual(
      expect.stringMatching(/image tokens of gpt-4o/),
    );
  });

  it("sends only the text when the model does not take pixels", async () => {
    const functions = fakes();
    await fromAiSdk({ modelId: "m" }, { ...functions, systemField: "system" }).chat(messages);
    expect(functions.calls[0]?.messages).toEqual([{ role: "user", content: "See [image] [image] [image]" }]);
  });
});
