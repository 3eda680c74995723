import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { DEFAULT_REFINE_PROMPT_SEL, DEFAULT_TEXT_QA_PROMPT_SEL } from "../prompt/index.js";
import { countPromptTokens, renderPrompt } from "../prompt/render-prompt.js";
import { MockLLM } from "../testing/mock-llm.js";
import { nodesOf, recordEvents, recordingCl100k, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const query = "What do the words say?";
const systemPrompt = "Answer in one short sentence.";

// compact and refine take each prompt's count from the packer (the piece was packed inside that prompt's frame)
// instead of counting the prompt and its context again; what they report must still be the prompt's real count.
describe("compact and refine report the packer's exact prompt counts", () => {
  for (const mode of ["compact", "refine"] as const) {
    for (const isChatModel of [false, true]) {
      it(`${mode}: every llm-call-start count equals a fresh count of the prompt sent (${isChatModel ? "chat" : "completion"})`, async () => {
        const answers: string[] = [];
        const llm = new MockLLM({
          isChatModel,
          contextWindow: 500,
          response: () => {
            answers.push(`answer ${answers.length + 1}: ${words(10, "a")}`);
            return answers[answers.length - 1] as string;
          },
        });
        const { tokenizer, counted, cl100k } = recordingCl100k();
        const promptHelper = new PromptHelper({ contextWindow: 500, numOutput: 48, tokenizer });
        const { events, onEvent } = recordEvents();
        const synthesizer = getResponseSynthesizer({
          llm,
          responseMode: mode,
          promptHelper,
          systemPrompt,
          onEvent,
        });
        const nodes = nodesOf(...Array.from({ length: 4 }, (_, index) => words(150, `n${index}w`)));
        await synthesizer.synthesize({ query, nodes });

        const starts = events.flatMap((event) => (event.type === "llm-call-start" ? [event] : []));
        expect(starts.length).toBeGreaterThan(2);
        const contexts = starts.map((event) => event.context ?? "");
        // No packed context (nor a prompt holding one) was counted whole again before or after its call.
        expect(counted.filter((text) => contexts.some((context) => text.includes(context)))).toEqual([]);
        const fresh = (context: string, index: number) => {
          const variables =
            index === 0
              ? { query_str: query, context_str: context }
              : { query_str: query, existing_answer: answers[index - 1] as string, context_msg: context };
          const prompt = index === 0 ? DEFAULT_TEXT_QA_PROMPT_SEL : DEFAULT_REFINE_PROMPT_SEL;
          return countPromptTokens(renderPrompt({ prompt, variables, llm, systemPrompt }), cl100k, {
            systemPrompt,
            llm,
          }).total;
        };
        expect(starts.map((event) => event.promptTokens)).toEqual(contexts.map(fresh));
        expect(starts.map((event) => event.contextTokens)).toEqual(
          contexts.map((text) => cl100k.count(text)),
        );
        const packs = events.flatMap((event) => (event.type === "pack" ? event.chunkTokens : []));
        expect(packs).toEqual(contexts.map((text) => cl100k.count(text)));
      });
    }
  }
});
