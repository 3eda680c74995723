import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { MissingTemplateVariableError } from "../errors/missing-template-variable-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { thrownBy } from "../util/thrown-by.test.util.js";
import { ChatPromptTemplate, PromptTemplate, SelectorPromptTemplate } from "./prompt-template.js";

const qa = new PromptTemplate({
  template: "Context: {context_str}\nQ: {query_str}\nA: ",
  promptType: "text_qa",
});

describe("PromptTemplate formatting is a single pass", () => {
  // String.prototype.replace gives these meaning; a formatter built on it would corrupt retrieved text.
  it.each([["$&"], ["$$5"], ["$'"], ["$`"], ["$1 and $<name>"]])("keeps %s in a value verbatim", (value) => {
    expect(qa.format({ context_str: value, query_str: "q" })).toBe(`Context: ${value}\nQ: q\nA: `);
  });

  it("does not fill variables that appear inside values", () => {
    const text = qa.format({ context_str: "see {query_str} and }{", query_str: "{context_str}" });
    expect(text).toBe("Context: see {query_str} and }{\nQ: {context_str}\nA: ");
  });

  it("does not fill variables inside partially formatted values", () => {
    const refine = new PromptTemplate({ template: "{existing_answer}|{context_msg}|{query_str}" });
    const partial = refine.partialFormat({ existing_answer: "answer mentions {query_str}" });
    expect(partial.format({ context_msg: "$&", query_str: "Q" })).toBe("answer mentions {query_str}|$&|Q");
  });

  it("leaves JSON braces in the template alone", () => {
    const template = new PromptTemplate({
      template: 'Reply like {"answer": "...", "n": {"k": 1}} to {query_str}. Code: {key: val for val in d}',
    });
    expect(template.variables).toEqual(["query_str"]);
    expect(template.format({ query_str: "why" })).toBe(
      'Reply like {"answer": "...", "n": {"k": 1}} to why. Code: {key: val for val in d}',
    );
  });

  it("reads {{ and }} as literal braces, as LlamaIndex's (Python) templates do", () => {
    const template = new PromptTemplate({
      template:
        'Answer as {{"answer": "...", "n": {{"k": 1}}}} or {{answer}} to {query_str}; {{{query_str}}}',
    });
    expect(template.variables).toEqual(["query_str"]);
    expect(template.format({ query_str: "why" })).toBe(
      'Answer as {"answer": "...", "n": {"k": 1}} or {answer} to why; {why}',
    );
    expect(template.formatEmpty()).toBe('Answer as {"answer": "...", "n": {"k": 1}} or {answer} to ; {}');
  });

  it("names every missing variable in a typed error", () => {
    const format = () => qa.format({ query_str: "q" });
    expect(format).toThrow(MissingTemplateVariableError);
    expect(format).toThrow("{context_str}");
    const error = thrownBy(() => qa.format());
    expect(RagsynthError.isInstance(error, "missing_template_variable")).toBe(true);
    expect((error as MissingTemplateVariableError).variables).toEqual(["context_str", "query_str"]);
  });

  it("turns numbers and booleans into text and rejects other values by name", () => {
    expect(new PromptTemplate({ template: "{n} {b}" }).format({ n: 3.5, b: false })).toBe("3.5 false");
    expect(() => qa.format({ context_str: ["a"] as unknown as string, query_str: "q" })).toThrow(
      InvalidArgumentError,
    );
    expect(() => qa.format({ context_str: ["a"] as unknown as string, query_str: "q" })).toThrow(
      "`variables.context_str`",
    );
  });
});

describe("partialFormat and formatEmpty", () => {
  it("returns a new template and leaves the original as it was", () => {
    const partial = qa.partialFormat({ query_str: "What?" });
    expect(partial).not.toBe(qa);
    expect(partial.partials).toEqual({ query_str: "What?" });
    expect(qa.partials).toEqual({});
    expect(partial.format({ context_str: "C" })).toBe("Context: C\nQ: What?\nA: ");
    expect(partial.variables).toEqual(["context_str", "query_str"]);
    expect(partial.promptType).toBe("text_qa");
  });

  it("lets values given to format override partials", () => {
    expect(qa.partialFormat({ query_str: "old" }).format({ context_str: "C", query_str: "new" })).toBe(
      "Context: C\nQ: new\nA: ",
    );
  });

  it("fills what is still open with empty text", () => {
    expect(qa.formatEmpty()).toBe("Context: \nQ: \nA: ");
    expect(qa.partialFormat({ query_str: "q" }).formatEmpty()).toBe("Context: \nQ: q\nA: ");
    expect(new PromptTemplate({ template: "This is the {foo} prompt{text}" }).formatEmpty()).toBe(
      "This is the  prompt",
    );
  });
});

describe("ChatPromptTemplate", () => {
  const chat = new ChatPromptTemplate({
    messages: [
      { role: "system", content: "You know about {topic}. JSON: {'foo': 'bar'}" },
      { role: "user", content: "{context_str}\n{query_str}" },
    ],
  });

  it("formats every message in one pass and keeps roles", () => {
    expect(chat.variables).toEqual(["topic", "context_str", "query_str"]);
    expect(chat.formatMessages({ topic: "$&", context_str: "{topic}", query_str: "q" })).toEqual([
      { role: "system", content: "You know about $&. JSON: {'foo': 'bar'}" },
      { role: "user", content: "{topic}\nq" },
    ]);
  });

  it("names the missing variables of all messages", () => {
    expect(() => chat.formatMessages({ context_str: "c" })).toThrow(MissingTemplateVariableError);
    expect(() => chat.formatMessages({ context_str: "c" })).toThrow("{topic}, {query_str}");
  });

  it("partially formats and fills the rest with empty text", () => {
    const partial = chat.partialFormat({ topic: "the moon" });
    expect(partial.formatMessagesEmpty()).toEqual([
      { role: "system", content: "You know about the moon. JSON: {'foo': 'bar'}" },
      { role: "user", content: "\n" },
    ]);
    expect(chat.partials).toEqual({});
  });

  it("needs at least one message", () => {
    expect(() => new ChatPromptTemplate({ messages: [] })).toThrow(InvalidArgumentError);
  });
});

describe("SelectorPromptTemplate", () => {
  const chatForm = new ChatPromptTemplate({ messages: [{ role: "user", content: "{context_str}" }] });
  const selector = new SelectorPromptTemplate({ defaultTemplate: qa, chatTemplate: chatForm });

  it("picks the chat form for chat models only", () => {
    expect(selector.select({ metadata: { isChatModel: true } })).toBe(chatForm);
    expect(selector.select({ metadata: { isChatModel: false } })).toBe(qa);
    expect(selector.select()).toBe(qa);
    const completionOnly = new SelectorPromptTemplate({ defaultTemplate: qa });
    expect(completionOnly.select({ metadata: { isChatModel: true } })).toBe(qa);
  });

  it("partially formats both forms", () => {
    const partial = selector.partialFormat({ query_str: "q" });
    expect(partial.defaultTemplate.partials).toEqual({ query_str: "q" });
    expect(partial.chatTemplate?.partials).toEqual({ query_str: "q" });
    expect(partial.promptType).toBe("text_qa");
  });
});
