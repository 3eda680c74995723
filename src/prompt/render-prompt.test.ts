import { describe, expect, it } from "vitest";
import { toStrictJsonSchema } from "../llm/strict-json-schema.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { ChatPromptTemplate, PromptTemplate, SelectorPromptTemplate } from "./prompt-template.js";
import {
  CHAT_TOKENS_PER_MESSAGE,
  CHAT_TOKENS_REPLY_PRIMING,
  countPromptTokens,
  renderedPromptText,
  renderPrompt,
} from "./render-prompt.js";

const tokenizer = resolveTokenizer("cl100k_base");
const chatModel = { metadata: { isChatModel: true } };
const completionModel = { metadata: { isChatModel: false } };
const qa = new PromptTemplate({ template: "Context: {context_str}\nQ: {query_str}" });
const chat = new ChatPromptTemplate({
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "{context_str}\n{query_str}" },
  ],
});
const schema = { name: "Answer", schema: { type: "object", properties: { a: { type: "string" } } } };

describe("renderPrompt", () => {
  it("prepends the system prompt to completion text as LlamaIndex does", () => {
    const rendered = renderPrompt({
      prompt: qa,
      variables: { context_str: "C", query_str: "Q" },
      systemPrompt: "S",
    });
    expect(rendered).toEqual({ kind: "completion", text: "S\n\nContext: C\nQ: Q" });
  });

  it("sends a completion template to a chat model as one user message after the system message", () => {
    const rendered = renderPrompt({
      prompt: qa,
      variables: { context_str: "C", query_str: "Q" },
      llm: chatModel,
      systemPrompt: "S",
    });
    expect(rendered).toEqual({
      kind: "chat",
      messages: [
        { role: "system", content: "S" },
        { role: "user", content: "Context: C\nQ: Q" },
      ],
    });
  });

  it("flattens a chat template for a completion model", () => {
    const rendered = renderPrompt({
      prompt: chat,
      variables: { context_str: "C", query_str: "Q" },
      llm: completionModel,
    });
    expect(rendered).toEqual({ kind: "completion", text: "system: Be brief.\nuser: C\nQ\nassistant: " });
  });

  it("resolves a selector for the model", () => {
    const selector = new SelectorPromptTemplate({ defaultTemplate: qa, chatTemplate: chat });
    const variables = { context_str: "C", query_str: "Q" };
    expect(renderPrompt({ prompt: selector, variables, llm: chatModel }).kind).toBe("chat");
    expect(renderPrompt({ prompt: selector, variables })).toEqual({
      kind: "completion",
      text: "Context: C\nQ: Q",
    });
  });

  it("renders the fixed part with open variables empty", () => {
    expect(renderPrompt({ prompt: qa, variables: { query_str: "Q" }, empty: true })).toEqual({
      kind: "completion",
      text: "Context: \nQ: Q",
    });
    expect(() => renderPrompt({ prompt: qa, variables: { query_str: "Q" } })).toThrow("{context_str}");
  });

  it("appends the schema as instructions unless the model takes it natively", () => {
    const asText = renderPrompt({
      prompt: qa,
      variables: { context_str: "C", query_str: "Q" },
      responseFormat: schema,
    });
    expect(asText.kind === "completion" && asText.text).toContain(JSON.stringify(schema.schema));
    const native = renderPrompt({
      prompt: qa,
      variables: { context_str: "C", query_str: "Q" },
      responseFormat: schema,
      llm: { metadata: { isChatModel: true, structuredOutput: "json_schema" } },
    });
    expect(renderedPromptText(native)).toBe("user: Context: C\nQ: Q");
  });
});

describe("countPromptTokens", () => {
  it("counts completion text exactly", () => {
    const rendered = renderPrompt({
      prompt: qa,
      variables: { context_str: "C", query_str: "Q" },
      systemPrompt: "S",
    });
    const counted = countPromptTokens(rendered, tokenizer, { systemPrompt: "S" });
    expect(counted.total).toBe(tokenizer.count("S\n\nContext: C\nQ: Q"));
    expect(counted.parts.systemPrompt).toBe(tokenizer.count("S"));
    expect(counted.parts.chatOverhead).toBe(0);
  });

  it("adds roles, 3 tokens per message and 3 for reply priming in chat", () => {
    const rendered = renderPrompt({
      prompt: chat,
      variables: { context_str: "C", query_str: "Q" },
      llm: chatModel,
    });
    const counted = countPromptTokens(rendered, tokenizer, { llm: chatModel });
    const content = tokenizer.count("Be brief.") + tokenizer.count("C\nQ");
    const overhead =
      tokenizer.count("system") +
      tokenizer.count("user") +
      2 * CHAT_TOKENS_PER_MESSAGE +
      CHAT_TOKENS_REPLY_PRIMING;
    expect(counted.total).toBe(content + overhead);
    expect(counted.parts.chatOverhead).toBe(overhead);
    expect(counted.parts.template).toBe(content);
  });

  it("counts a natively sent schema beside the messages, in the strict form OpenAILike sends", () => {
    const llm = { metadata: { isChatModel: true, structuredOutput: "json_schema" as const } };
    const options = { prompt: qa, variables: { context_str: "C", query_str: "Q" }, llm };
    const without = countPromptTokens(renderPrompt(options), tokenizer, { llm }).total;
    const withSchema = countPromptTokens(renderPrompt({ ...options, responseFormat: schema }), tokenizer, {
      llm,
      responseFormat: schema,
    });
    expect(withSchema.total - without).toBe(
      tokenizer.count(JSON.stringify(toStrictJsonSchema(schema.schema) ?? schema.schema)) +
        tokenizer.count(schema.name),
    );
    expect(withSchema.parts.schema).toBe(withSchema.total - without);
  });
});
