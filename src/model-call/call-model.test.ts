import { describe, expect, it, vi } from "vitest";
import { PromptHelper } from "../budget/index.js";
import type { RagsynthEvent, SynthesisUsage } from "../events/events.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { MockLLM } from "../testing/mock-llm.js";
import { defaultTracer } from "../tracing/start-span.js";
import { callModel, type ModelCallPath } from "./call-model.js";
import { startCallTrace } from "./call-trace.js";

/** A call path over `llm` whose events land in `events` (spans go to the no-op default tracer). */
function pathFor(llm: MockLLM, events: RagsynthEvent[]): ModelCallPath {
  const promptHelper = PromptHelper.fromLLMMetadata(llm.metadata);
  const usage: SynthesisUsage = { llmCalls: 0, promptTokens: 0, completionTokens: 0, retries: 0 };
  return {
    mode: "test",
    llm,
    promptHelper,
    systemPrompt: "Be brief.",
    signal: new AbortController().signal,
    limiter: undefined,
    usage,
    trace: {
      startCall: (step, request) =>
        startCallTrace(defaultTracer(), step, request, { mode: "test", captureContent: false }),
    },
    emit: (event) => events.push(event),
    now: () => 0,
  };
}

describe("callModel", () => {
  for (const streaming of [false, true]) {
    it(`renders the prompt once per call (${streaming ? "streaming" : "not streaming"})`, async () => {
      const llm = new MockLLM({ response: "An answer." });
      const template = new PromptTemplate({ template: "Context: {context_str}\nQ: {query_str}" });
      const format = vi.spyOn(template, "format");
      const events: RagsynthEvent[] = [];
      const result = await callModel(
        pathFor(llm, events),
        template,
        { query_str: "Why?", context_str: "Because." },
        {
          step: { kind: "answer", index: 0 },
          context: "Because.",
          ...(streaming ? { onDelta: () => undefined } : {}),
        },
      );
      expect(result.text).toBe("An answer.");
      expect(format).toHaveBeenCalledTimes(1);
      // What the model received is the one rendering.
      expect(llm.calls).toHaveLength(1);
      expect(result.rendered).toEqual({
        kind: "completion",
        text: "Be brief.\n\nContext: Because.\nQ: Why?",
      });
    });
  }

  it("gives each call an id, the same on its start and end events, different between calls", async () => {
    const llm = new MockLLM({ response: "Yes." });
    const template = new PromptTemplate({ template: "Q: {query_str}" });
    const events: RagsynthEvent[] = [];
    const path = pathFor(llm, events);
    await Promise.all(
      [0, 1, 2].map((index) =>
        callModel(path, template, { query_str: `Question ${index}?` }, { step: { kind: "answer", index } }),
      ),
    );
    const calls = events.filter((event) => event.type === "llm-call-start" || event.type === "llm-call-end");
    expect(calls).toHaveLength(6);
    for (const event of calls) expect(event.callId).toMatch(/^call-[0-9a-z]+-[0-9a-z]+$/);
    const ids = (type: string) => calls.filter((event) => event.type === type).map((event) => event.callId);
    expect(new Set(ids("llm-call-start")).size).toBe(3);
    expect(new Set(ids("llm-call-end"))).toEqual(new Set(ids("llm-call-start")));
  });
});
