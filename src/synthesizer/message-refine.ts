import type { ChatBudgetOptions } from "../budget/chat-prompt-helper.js";
import { type ContentPacker, imageOverflow } from "../budget/content-packer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { parseObject, toResponseFormat } from "../prompt/predict.js";
import type { BasePromptTemplate, TemplateVariables } from "../prompt/prompt-template.js";
import type { ContentBlock } from "../schema/content-block.js";
import { nodesToBlocks } from "../schema/nodes-to-blocks.js";
import type { SynthesizerRunResult } from "./create-synthesizer.js";
import { reportPack } from "./mode-budget.js";
import type { RefineModeOptions } from "./refine-mode-options.js";
import type { SynthesizerContext } from "./synthesizer-context.js";

/** The context's blocks for each node, in order (refine never merges two nodes); image sizes as prepared. */
export function blocksPerNode(context: SynthesizerContext): ContentBlock[][] {
  let next = 0;
  return context.nodes.map((entry) => {
    const count = nodesToBlocks([entry]).length;
    const blocks = context.blocks.slice(next, next + count);
    next += count;
    return blocks;
  });
}

/**
 * Throws, before any call, for an image that cannot fit in the smallest room a step can have: the QA
 * prompt's, or the refine prompt's with an answer of up to `numOutput` tokens when more steps may follow.
 */
export function checkImagesFit(
  context: SynthesizerContext,
  room: number,
  blocks: readonly ContentBlock[],
): void {
  const helper = context.chatPromptHelper;
  const limits = { contextWindow: helper.contextWindow, numOutput: helper.numOutput };
  for (const block of blocks) {
    if (block.type !== "image") continue;
    const tokens = helper.countImage(block);
    if (tokens > room) throw imageOverflow(block, tokens, room, limits);
  }
}

/**
 * `refine` and `compact` on the message path: the chat content QA prompt while there is no answer, the chat
 * content refine prompt after, each step packed just in time beside its actual prompt; text is cut, images
 * are whole. Only the last call streams.
 */
export async function runMessageRefine<T>(
  context: SynthesizerContext,
  options: RefineModeOptions<T>,
): Promise<SynthesizerRunResult<T>> {
  if (options.structuredAnswerFiltering) {
    throw new InvalidArgumentError({
      parameter: "structuredAnswerFiltering",
      value: true,
      expected: "be off for nodes with images",
      hint: "Filtering parses a streamed JSON answer per text chunk; turn it off for multimodal synthesis.",
    });
  }
  const { query, signal, mode } = context;
  const helper = context.chatPromptHelper;
  const qa = context.prompts.chat_content_qa_template as BasePromptTemplate;
  const refine = context.prompts.chat_content_refine_template as BasePromptTemplate;
  const responseFormat = options.outputSchema ? await toResponseFormat(options.outputSchema) : undefined;
  const budgetFor = (variables: TemplateVariables, contextVariable: string): ChatBudgetOptions => ({
    ...context.budget({ variables, ...(responseFormat ? { responseFormat } : {}) }),
    contextVariable,
  });

  const groups = mode === "compact" ? [[...context.blocks]] : blocksPerNode(context);
  const packers: ContentPacker[] = groups
    .map((blocks) => helper.createPacker(blocks))
    .filter((packer) => !packer.done);
  const total = helper.countBlocks(context.blocks);
  const qaBudget = budgetFor({ query_str: query }, "context_str");
  const qaRoom = helper.getAvailableContextSize(qa, qaBudget);
  checkImagesFit(context, qaRoom, context.blocks);
  if (packers.length > 1 || total > qaRoom) {
    const refineRoom =
      helper.getAvailableContextSize(
        refine,
        budgetFor({ query_str: query, existing_answer: "" }, "context_msg"),
      ) - helper.numOutput;
    checkImagesFit(context, refineRoom, context.blocks);
  }

  let answer: string | undefined;
  let object: T | undefined;
  let step = 0;
  for (const [index, packer] of packers.entries()) {
    while (!packer.done) {
      signal.throwIfAborted();
      const first = answer === undefined;
      const variables: TemplateVariables = first
        ? { query_str: query }
        : { query_str: query, existing_answer: answer as string };
      const variable = first ? "context_str" : "context_msg";
      const template = first ? qa : refine;
      const available = helper.getAvailableContextSize(template, budgetFor(variables, variable));
      const chunk = packer.next(available);
      if (chunk === undefined) break;
      reportPack(context, { round: step, chunkTokens: [chunk.tokens], availableChunkSize: available });
      const call = packer.done && index === packers.length - 1 ? context.stream : context.call;
      const { text } = await call(template, variables, {
        step: { kind: first ? "answer" : "refine", index: step },
        content: { variable, blocks: chunk.blocks },
        responseFormat,
      });
      step += 1;
      if (options.outputSchema) object = parseObject(text, options.outputSchema);
      if (text.trim() !== "") answer = text;
    }
  }
  const text = answer ?? "";
  if (object !== undefined) return { text, object };
  return { text: text === "" ? context.emptyResponse : text };
}
