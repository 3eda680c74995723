import type { BudgetOptions } from "../budget/budget-options.js";
import type { PromptFrame } from "../budget/text-packer.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import type { LLMCallStep } from "../events/events.js";
import type { JsonSchemaFormat } from "../llm/types.js";
import { STRUCTURED_REFINE_RESPONSE_SCHEMA } from "../prompt/default-prompts.js";
import { parseObject, toResponseFormat } from "../prompt/predict.js";
import type { TemplateVariables } from "../prompt/prompt-template.js";
import { type ContentLane, contentLane, type PackedContent } from "./content-lane.js";
import { createSynthesizer, type SynthesizerRunResult } from "./create-synthesizer.js";
import { reportPack } from "./mode-budget.js";
import type { RefineModeOptions } from "./refine-mode-options.js";
import { createStructuredRefineParser, type StructuredRefineAnswer } from "./structured-refine-parser.js";
import type { SynthesizerContext } from "./synthesizer-context.js";
import type { ResponseSynthesizer } from "./types.js";

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
    prompts: {
      text_qa_template: options.textQaTemplate,
      refine_template: options.refineTemplate,
      chat_content_qa_template: options.chatContentQaTemplate,
      chat_content_refine_template: options.chatContentRefineTemplate,
    },
    imageNodes: "blocks",
    run: (context) => runRefine(context, options),
  });
}

/**
 * The room the next step has: the QA prompt while there is no answer, else the refine prompt with the real
 * answer so far. With a frame (text), each piece is checked inside its exact rendered prompt, so the padding
 * (a margin for BPE merges at the seams) would only waste room: 5 tokens a step, a whole extra call on long runs.
 * @throws ContextOverflowError when the prompt leaves no room for one token of context
 */
function roomForStep(
  context: SynthesizerContext,
  lane: ContentLane,
  answer: string | undefined,
  budgetFor: (variables: TemplateVariables) => BudgetOptions,
): { available: number; frame?: PromptFrame | undefined } {
  const { query } = context;
  const first = answer === undefined;
  const budget = budgetFor(first ? { query_str: query } : { query_str: query, existing_answer: answer });
  try {
    return lane.room(lane.template(first ? "qa" : "refine"), budget, first ? "context_str" : "context_msg");
  } catch (error) {
    throw overflowWithAnswer(context, answer, error);
  }
}

/**
 * Images cannot be cut, so every image is checked before the first call: those the first (QA) step takes beside the
 * QA prompt, and every later one beside the refine prompt with an answer of `numOutput` tokens, the longest the model
 * may write. Checked with the real answer instead, a run could stop after calls were paid for because the model
 * wrote an answer it was allowed to write. Text is still packed step by step beside the real answer (text can be
 * cut, so short answers leave more room and no run is refused for a long answer that never came).
 * Which images the first step takes is found by packing it on fresh takers, as the run will.
 */
function checkImagesFit(
  context: SynthesizerContext,
  lane: ContentLane,
  perNode: boolean,
  budgetFor: (variables: TemplateVariables) => BudgetOptions,
): void {
  const qa = lane.room(lane.template("qa"), budgetFor({ query_str: context.query }), "context_str").available;
  lane.checkImages(qa);
  const takers = lane.takers(perNode).filter((taker) => !taker.done);
  const first = takers[0]?.next(qa);
  if (!takers.some((taker) => !taker.done)) return;
  const { numOutput } = context.promptHelper;
  let room = 0;
  try {
    room = lane.room(
      lane.template("refine"),
      budgetFor({ query_str: context.query, existing_answer: answerOfTokens(context, numOutput) }),
      "context_msg",
    ).available;
  } catch (error) {
    // The refine prompt with such an answer leaves no room: any image in a later step is refused below.
    if (!ContextOverflowError.isInstance(error)) throw error;
  }
  lane.checkImages(room, {
    except: new Set(first?.blocks ?? []),
    beside: `in a refine step (beside the answer so far, up to numOutput ${numOutput} tokens),`,
  });
}

/** A stand-in answer of at least `tokens` tokens by the run's tokenizer (" x" is one token in the GPT encodings). */
function answerOfTokens(context: SynthesizerContext, tokens: number): string {
  const { tokenizer } = context.promptHelper;
  let answer = " x".repeat(tokens).trimStart();
  // A tokenizer that merges the repeats gets more of them, a few rounds at most.
  for (let round = 0, counted = tokenizer.count(answer); counted < tokens && round < 8; round++) {
    answer += " x".repeat(tokens - counted);
    counted = tokenizer.count(answer);
  }
  return answer;
}

/**
 * Before the first call an overflow is the prompt's own; after it, the real answer so far has taken the room,
 * and the error says how long it is and to lower numOutput.
 */
function overflowWithAnswer(
  context: SynthesizerContext,
  answer: string | undefined,
  error: unknown,
): unknown {
  // Every "does not fit" is a ContextOverflowError carrying the numbers PromptHelper computed; they are kept.
  if (answer === undefined || !ContextOverflowError.isInstance(error)) return error;
  const helper = context.promptHelper;
  const answerTokens = helper.tokenizer.count(answer);
  return new ContextOverflowError({
    contextWindow: error.contextWindow,
    numOutput: error.numOutput,
    promptTokens: error.promptTokens,
    overBy: error.overBy,
    ...(error.parts ? { parts: error.parts } : {}),
    what: `The refine prompt with the existing answer (${answerTokens} tokens)`,
    hint:
      `The answer so far (${answerTokens} tokens) leaves no room for the next piece of context. ` +
      "Lower numOutput (answers can be that long), or raise contextWindow.",
  });
}

/** Warns up front when answers of up to numOutput tokens could crowd the context out of refine steps. */
function warnLargeNumOutput(context: SynthesizerContext): void {
  const { contextWindow, numOutput } = context.promptHelper;
  if (numOutput * 2 <= contextWindow) return;
  context.emit({
    type: "warning",
    mode: context.mode,
    code: "large_num_output",
    message:
      `numOutput ${numOutput} is over half of contextWindow ${contextWindow}: an answer that long leaves ` +
      `little room for context in the refine steps, which may then stop with a context overflow. Lower numOutput.`,
  });
}

interface RefineState<T> {
  answer: string | undefined;
  /** The call that wrote `answer`: the next step reads it. */
  answerCallId: string | undefined;
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
  const { signal } = context;
  const lane = contentLane(context);
  const responseFormat = await responseFormatOf(options);
  const budgetFor = (variables: TemplateVariables) =>
    context.budget({ variables, ...(responseFormat ? { responseFormat } : {}) });

  const perNode = context.mode !== "compact";
  const takers = lane.takers(perNode).filter((taker) => !taker.done);
  if (lane.images) checkImagesFit(context, lane, perNode, budgetFor);
  warnLargeNumOutput(context);

  const state: RefineState<T> = { answer: undefined, answerCallId: undefined, object: undefined, step: 0 };
  const ask = (piece: PackedContent, isFinal: boolean, available: number) =>
    askStep(context, lane, options, state, { piece, isFinal, available, responseFormat });
  const room = () => roomForStep(context, lane, state.answer, budgetFor);
  if (takers.length === 0) await ask({ blocks: [], tokens: 0 }, true, room().available);
  for (const [index, taker] of takers.entries()) {
    while (!taker.done) {
      signal.throwIfAborted();
      const { available, frame } = room();
      let piece: PackedContent | undefined;
      try {
        piece = taker.next(available, { frame });
      } catch (error) {
        throw overflowWithAnswer(context, state.answer, error);
      }
      if (piece === undefined) break;
      await ask(piece, taker.done && index === takers.length - 1, available);
    }
  }
  const text = state.answer ?? "";
  if (state.object !== undefined) return { text, object: state.object };
  return { text: text === "" ? context.emptyResponse : text };
}

/**
 * One call: the QA prompt while there is no answer yet, the refine prompt after. Updates `state`. A text piece
 * comes with the packer's exact counts (of itself and, packed inside its prompt's frame, of the whole prompt),
 * so neither the pack event nor the call tokenizes it again.
 */
async function askStep<T>(
  context: SynthesizerContext,
  lane: ContentLane,
  options: RefineModeOptions<T>,
  state: RefineState<T>,
  {
    piece,
    isFinal,
    available,
    responseFormat,
  }: {
    piece: PackedContent;
    isFinal: boolean;
    available: number;
    responseFormat: JsonSchemaFormat | undefined;
  },
): Promise<void> {
  const { query } = context;
  const { answer, step } = state;
  const first = answer === undefined;
  state.step += 1;
  reportPack(context, { round: step, chunkTokens: [piece.tokens], availableChunkSize: available });
  const template = lane.template(first ? "qa" : "refine");
  const placed = lane.place(piece, first ? "context_str" : "context_msg");
  const variables: TemplateVariables = first
    ? { query_str: query, ...placed.values }
    : { query_str: query, existing_answer: answer, ...placed.values };
  const callStep: LLMCallStep = { kind: first ? "answer" : "refine", index: step };
  const reads = state.answerCallId === undefined ? {} : { inputCallIds: [state.answerCallId] };

  if (options.structuredAnswerFiltering) {
    // Streamed even when the caller does not stream, so an irrelevant chunk is abandoned after a few tokens.
    const parser = await createStructuredRefineParser(isFinal ? (delta) => context.write(delta) : undefined);
    let parsed: StructuredRefineAnswer | undefined;
    const { callId } = await context.call(template, variables, {
      ...placed.call,
      ...reads,
      step: callStep,
      responseFormat,
      onDelta: (delta) => parser.feed(delta),
      describe: (text, stopped) => {
        if (stopped) return { querySatisfied: false };
        parsed = parser.finish(text);
        return { querySatisfied: parsed.querySatisfied };
      },
    });
    if (parsed?.querySatisfied && parsed.answer.trim() !== "") {
      state.answer = parsed.answer;
      state.answerCallId = callId;
    }
    return;
  }
  const call = isFinal ? context.stream : context.call;
  const { text, callId } = await call(template, variables, {
    ...placed.call,
    ...reads,
    step: callStep,
    responseFormat,
  });
  if (options.outputSchema) state.object = parseObject(text, options.outputSchema);
  // An empty refinement keeps the answer so far.
  if (text.trim() !== "") {
    state.answer = text;
    state.answerCallId = callId;
  }
}
