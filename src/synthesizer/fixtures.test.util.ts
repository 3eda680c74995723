// Shared test fixtures (not shipped: the package excludes `*.test.*`).
import type { RagsynthEvent } from "../events/events.js";
import type { LLMCallOptions } from "../llm/types.js";
import { type NodeWithScore, TextNode } from "../schema/text-node.js";
import { MockLLM, type MockLLMOptions } from "../testing/mock-llm.js";
import { recordingTokenizer } from "../tokenizer/recording-tokenizer.test.util.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { Tokenizer, TokenizerFunction } from "../tokenizer/tokenizer.js";

/** LlamaIndex's test tokenizer: split on space or newline, drop blanks. */
export const MOCK_TOKENIZER: TokenizerFunction = (text) =>
  text.split(/[ \n]/).filter((piece) => piece.trim() !== "");

export function nodesOf(...texts: string[]): NodeWithScore[] {
  return texts.map((text, index) => ({
    node: new TextNode({ id: `n${index + 1}`, text }),
    score: 1 - index / 100,
  }));
}

/** LlamaIndex's PTYPE fixture: the answer depends on the prompt type and the values, never the template text. */
export function ptypeAnswer(options: LLMCallOptions): string {
  const values = options.templateVariables ?? {};
  switch (options.promptType) {
    case "summary":
      return values.context_str ?? "";
    case "text_qa":
      return `${values.query_str}:${values.context_str}`;
    case "refine":
      return `${values.existing_answer}:${values.context_msg}`;
    case "simple_input":
      return values.query_str ?? "";
    default:
      throw new Error(`PTYPE has no answer for prompt type ${options.promptType}`);
  }
}

export function ptypeLLM(options: Omit<MockLLMOptions, "response"> = {}): MockLLM {
  return new MockLLM({ ...options, response: ({ options: call }) => ptypeAnswer(call) });
}

export async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const deltas: string[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

export function recordEvents() {
  const events: RagsynthEvent[] = [];
  return { events, onEvent: (event: RagsynthEvent) => void events.push(event) };
}

/** `count` words of the form `w0 w1 …` (one cl100k token each for small counts when prefixed). */
export function words(count: number, prefix = "word"): string {
  return Array.from({ length: count }, (_, index) => `${prefix}${index}`).join(" ");
}

/**
 * cl100k, recording every text it is asked to count (`counted`), with its pre-tokenizer so packing stays exact;
 * `cl100k` is the plain encoding, for counts the test makes itself.
 */
export function recordingCl100k(): { tokenizer: Tokenizer; counted: string[]; cl100k: Tokenizer } {
  const cl100k = resolveTokenizer("cl100k_base");
  return { ...recordingTokenizer(cl100k, { pretokenizer: true }), cl100k };
}
