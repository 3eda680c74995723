// Type-checked (not run) by `npm run typecheck:ai-sdk`: fromAiSdk accepts each supported major's own
// generateText and streamText, as users pass them.
import { generateText as generateText6, streamText as streamText6 } from "ai6";
import { MockLanguageModelV3 } from "ai6/test";
import { generateText as generateText7, streamText as streamText7 } from "ai7";
import { MockLanguageModelV4 } from "ai7/test";
import { fromAiSdk, type LLM } from "ragsynth";

export const withAi6: LLM = fromAiSdk(new MockLanguageModelV3(), {
  generateText: generateText6,
  streamText: streamText6,
});
export const withAi7: LLM = fromAiSdk(new MockLanguageModelV4(), {
  generateText: generateText7,
  streamText: streamText7,
});
