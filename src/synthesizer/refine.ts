import type { ZodType } from "zod";
import { type BudgetOptions, DEFAULT_PADDING } from "../budget/index.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import type { LLMCallStep } from "../events/events.js";
import type { JsonSchemaFormat } from "../llm/types.js";
import { STRUCTURED_REFINE_RESPONSE_SCHEMA } from "../prompt/default-prompts.js";
import { parseObject, toResponseFormat } from "../prompt/predict.js";
import type { BasePromptTemplate, TemplateVariables } from "../prompt/prompt-template.js";
import {
  createSynthesizer,
  type SynthesizerRunResult,
  type SynthesizerSettings,
} from "./create-synthesizer.js";
import { createStructuredRefineParser, type StructuredRefineAnswer } from "./structured-refine-parser.js";
import type { SynthesizerContext } from "./synthesizer-context.js";
import type { ResponseSynthesizer } from "./types.js";

/** The least context a refine step must be able to take next to its prompt and a full-length answer. */
export const MIN_CONTEXT_TOKENS = 16;

export interface RefineModeOptions<T> {
  mode: "refine" | "compact";
  settings: SynthesizerSettings;
  textQaTemplate: BasePromptTemplate;
  refineTemplate: BasePromptTemplate;
  structuredAnswerFiltering: boolean;
  outputSchema: ZodType<T> | undefined;
}

/**
 * `refine` and `compact` with just-in-time packing: each step takes as much of the remaining text as fits
 * next to the actual prompt (query, current answer, system prompt, schema), so nothing overflows and no
 * step carries a scrap. `compact` packs across nodes; `refine` never merges two nodes.
 * Differs from LlamaIndex: no repack-then-re-split (fewer calls), and the answer is refreshed after every piece.
 */
export function createRefineSynthesizer<T>(options: RefineModeOptions<T>): ResponseSynthesizer<T> {
  return createSynthesizer<T>({
    ...options.settings,
    mode: options.mode,
    prompts: { text_qa_template: options.textQaTemplate, refine_template: options.refineTemplate },
    run: (context) => runRefine(context, options),
  });
}

/** Throws unless a step with this prompt, plus `reserve` tokens of existing answer, leaves room for real context. */
function requireRoom(
  context: SynthesizerContext,
  prompt: BasePromptTemplate,
  budget: BudgetOptions,
  reserve: number,
  what: string,
) {
  const helper = context.promptHelper;
  const { total, parts } = helper.countPrompt(prompt, budget);
  const room = helper.contextWindow - total - reserve - helper.numOutput - DEFAULT_PADDING;
  if (room >= MIN_CONTEXT_TOKENS) return;
  throw new ContextOverflowError({
    contextWindow: helper.contextWindow,
    numOutput: helper.numOutput,
    promptTokens: total + reserve,
    parts,
    what,
    hint:
      `Each step needs its prompt${reserve > 0 ? ", an existing answer of up to numOutput tokens" : ""}, ` +
      `padding ${DEFAULT_PADDING} and at least ${MIN_CONTEXT_TOKENS} context tokens. ` +
      "Raise contextWindow, lower numOutput, or shorten the query, template or system prompt.",
  });
}

interface RefineState<T> {
  answer: string | undefined;
  object: T | undefined;
  step: number;
}

async function responseFormatOf<T>(options: RefineModeOptions<T>): Promise<JsonSchemaFormat | undefined> {
  if (options.structuredAnswerFiltering) {
    const { name, schema } = STRUCTURED_REFINE_RESPONSE_SCHEMA;
    return { name, schema: schema as Record<string, unknown> };
  }
  return options.outputSchema ? toResponseFormat(options.outputSchema) : undefined;
}

async function runRefine<T>(
  context: SynthesizerContext,
  options: RefineModeOptions<T>,
): Promise<SynthesizerRunResult<T>> {
  const { query, signal } = context;
  const helper = context.promptHelper;
  const qa = context.prompts.text_qa_template as BasePromptTemplate;
  const refine = context.prompts.refine_template as BasePromptTemplate;
  const responseFormat = await responseFormatOf(options);
  const budgetFor = (variables: TemplateVariables) =>
    context.budget({ variables, ...(responseFormat ? { responseFormat } : {}) });

  const packers = (
    context.mode === "compact"
      ? [helper.createPacker([...context.chunks])]
      : context.chunks.map((chunk) => helper.createPacker([chunk]))
  ).filter((packer) => !packer.done);
  const totalTokens = packers.reduce((sum, packer) => sum + packer.remainingTokens, 0);

  // Up front, before any call: the QA step, and (when more than one step may follow) a refine step with a full-length answer.
  const qaBudget = budgetFor({ query_str: query });
  const qaAvailable = helper.getAvailableChunkSize(qa, qaBudget);
  if (totalTokens > qaAvailable) requireRoom(context, qa, qaBudget, 0, "The question-answering prompt");
  if (packers.length > 1 || totalTokens > qaAvailable) {
    const refineBudget = budgetFor({ query_str: query, existing_answer: "" });
    requireRoom(context, refine, refineBudget, helper.numOutput, "The refine prompt with an existing answer");
  }

  const state: RefineState<T> = { answer: undefined, object: undefined, step: 0 };
  const ask = (piece: string, isFinal: boolean, available: number) =>
    askStep(context, options, state, { piece, isFinal, available, responseFormat });
  if (packers.length === 0) await ask("", true, qaAvailable);
  for (const [index, packer] of packers.entries()) {
    while (!packer.done) {
      signal.throwIfAborted();
      const { answer } = state;
      const template = answer === undefined ? qa : refine;
      const budget = budgetFor(
        answer === undefined ? { query_str: query } : { query_str: query, existing_answer: answer },
      );
      // With a frame, each piece is checked inside its exact rendered prompt, so the padding (a margin for
      // BPE merges at the seams) would only waste room: 5 tokens a step, a whole extra call on long runs.
      const frame = helper.createPromptFrame(template, budget);
      const available = helper.getAvailableChunkSize(template, frame ? { ...budget, padding: 0 } : budget);
      const piece = packer.next(available, { frame });
      if (piece === undefined) break;
      await ask(piece, packer.done && index === packers.length - 1, available);
    }
  }
  const text = state.answer ?? "";
  if (state.object !== undefined) return { text, object: state.object };
  return { text: text === "" ? context.emptyResponse : text };
}

/** One call: the QA prompt while there is no answer yet, the refine prompt after. Updates `state`. */
async function askStep<T>(
  context: SynthesizerContext,
  options: RefineModeOptions<T>,
  state: RefineState<T>,
  {
    piece,
    isFinal,
    available,
    responseFormat,
  }: { piece: string; isFinal: boolean; available: number; responseFormat: JsonSchemaFormat | undefined },
): Promise<void> {
  const { query, mode } = context;
  const { answer, step } = state;
  state.step += 1;
  context.emit({
    type: "pack",
    mode,
    round: step,
    chunkTokens: [context.promptHelper.tokenizer.count(piece)],
    availableChunkSize: available,
  });
  const template = (
    answer === undefined ? context.prompts.text_qa_template : context.prompts.refine_template
  ) as BasePromptTemplate;
  const variables: TemplateVariables =
    answer === undefined
      ? { query_str: query, context_str: piece }
      : { query_str: query, existing_answer: answer, context_msg: piece };
  const callStep: LLMCallStep = { kind: answer === undefined ? "answer" : "refine", index: step };

  if (options.structuredAnswerFiltering) {
    // Streamed even when the caller does not stream, so an irrelevant chunk is abandoned after a few tokens.
    const parser = createStructuredRefineParser(isFinal ? (delta) => context.write(delta) : undefined);
    let parsed: StructuredRefineAnswer | undefined;
    await context.call(template, variables, {
      step: callStep,
      context: piece,
      responseFormat,
      onDelta: (delta) => parser.feed(delta),
      describe: (text, stopped) => {
        if (stopped) return { querySatisfied: false };
        parsed = parser.finish(text);
        return { querySatisfied: parsed.querySatisfied };
      },
    });
    if (parsed?.querySatisfied && parsed.answer.trim() !== "") state.answer = parsed.answer;
    return;
  }
  const call = isFinal ? context.stream : context.call;
  const { text } = await call(template, variables, { step: callStep, context: piece, responseFormat });
  if (options.outputSchema) state.object = parseObject(text, options.outputSchema);
  // An empty refinement keeps the answer so far.
  if (text.trim() !== "") state.answer = text;
}
