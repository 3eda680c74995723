import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { DEFAULT_TREE_SUMMARIZE_PROMPT_SEL } from "../prompt/index.js";
import { countPromptTokens, renderPrompt } from "../prompt/render-prompt.js";
import { MockLLM } from "../testing/mock-llm.js";
import { nodesOf, recordEvents, recordingCl100k, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const query = "What do the words say?";
const systemPrompt = "Answer in one short sentence.";

// tree_summarize takes each prompt's count from the packer instead of counting the prompt again; the count it
// reports must still be the prompt's real count, for chat and completion models alike.
describe("tree_summarize reports the packer's exact prompt counts", () => {
  for (const isChatModel of [false, true]) {
    it(`every llm-call-start count equals a fresh count of the prompt sent (${isChatModel ? "chat" : "completion"})`, async () => {
      const contexts: string[] = [];
      const llm = new MockLLM({
        isChatModel,
        contextWindow: 600,
        response: ({ options }) => {
          contexts.push(options.templateVariables?.context_str ?? "");
          return `summary ${contexts.length}: ${words(12, "s")}`;
        },
      });
      const { tokenizer, counted, cl100k } = recordingCl100k();
      const promptHelper = new PromptHelper({ contextWindow: 600, numOutput: 64, tokenizer });
      const { events, onEvent } = recordEvents();
      const synthesizer = getResponseSynthesizer({
        llm,
        responseMode: "tree_summarize",
        promptHelper,
        systemPrompt,
        concurrency: 2,
        onEvent,
      });
      const nodes = nodesOf(...Array.from({ length: 12 }, (_, index) => words(90, `n${index}w`)));
      await synthesizer.synthesize({ query, nodes });

      const starts = events.flatMap((event) => (event.type === "llm-call-start" ? [event] : []));
      expect(starts.length).toBeGreaterThan(3);
      // No prompt (nor a packed context) was counted whole again before or after its call.
      expect(counted.filter((text) => contexts.some((context) => text.includes(context)))).toEqual([]);
      const fresh = (context: string) =>
        countPromptTokens(
          renderPrompt({
            prompt: DEFAULT_TREE_SUMMARIZE_PROMPT_SEL,
            variables: { query_str: query, context_str: context },
            llm,
            systemPrompt,
          }),
          cl100k,
          { systemPrompt, llm },
        ).total;
      // Calls start in the order their contexts reach the model (the mock answers synchronously).
      expect(starts.map((event) => event.promptTokens)).toEqual(contexts.map(fresh));
      expect(starts.map((event) => event.contextTokens)).toEqual(contexts.map((text) => cl100k.count(text)));
    });
  }
});
