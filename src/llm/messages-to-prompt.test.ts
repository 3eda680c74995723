import { describe, expect, it } from "vitest";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { renderedPromptText, renderPrompt } from "../prompt/render-prompt.js";
import { MockLLM } from "../testing/mock-llm.js";
import { messagesToPrompt } from "./messages-to-prompt.js";

const messages = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Capital of France?" },
] as const;

describe("messagesToPrompt", () => {
  it("flattens messages as LlamaIndex's messages_to_prompt, with the open assistant turn on request", () => {
    expect(messagesToPrompt(messages)).toBe("system: Be brief.\nuser: Capital of France?");
    expect(messagesToPrompt(messages, { assistantTurn: true })).toBe(
      "system: Be brief.\nuser: Capital of France?\nassistant: ",
    );
    expect(messagesToPrompt([])).toBe("");
  });

  it("is what a chat becomes for a completion model, in the renderer and in MockLLM's echo alike", async () => {
    const completion = new MockLLM({ response: "echo", isChatModel: false });
    const rendered = renderPrompt({
      prompt: new PromptTemplate({ template: "Capital of {country}?" }),
      variables: { country: "France" },
      llm: { metadata: { ...completion.metadata, isChatModel: true } },
    });
    expect(rendered.kind).toBe("chat");
    const { text } = await completion.chat([...messages]);
    expect(text).toBe(messagesToPrompt(messages, { assistantTurn: true }));
    expect(renderedPromptText(rendered)).toBe(
      messagesToPrompt(rendered.kind === "chat" ? rendered.messages : []),
    );
  });
});
