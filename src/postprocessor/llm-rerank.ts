import type { Tracer } from "@opentelemetry/api";
import { PromptHelper } from "../budget/prompt-helper.js";
import { checkInteger } from "../errors/check-integer.js";
import { checkObject, optionsOf } from "../errors/check-options.js";
import { checkQuery } from "../errors/check-query.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEventHandler, SynthesisUsage } from "../events/events.js";
import { DEFAULT_NUM_OUTPUT, type LLM } from "../llm/types.js";
import { callModel, type ModelCallPath } from "../model-call/call-model.js";
import { startCallTrace } from "../model-call/call-trace.js";
import type { BasePromptTemplate, PromptMixin } from "../prompt/prompt-template.js";
import { checkNodesWithScore } from "../schema/check-text-nodes.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { captureContentFromEnv } from "../tracing/gen-ai.js";
import { defaultTracer, prepareTracer } from "../tracing/start-span.js";
import { limiterForModel } from "../util/concurrency-limiter.js";
import { mergeAbortSignals } from "../util/merge-abort-signals.js";
import { DEFAULT_CHOICE_SELECT_PROMPT, formatNodeBatch } from "./choice-select-prompt.js";
import { countNodesTokens } from "./count-node-tokens.js";
import { parseChoiceSelectAnswer } from "./parse-choice-select-answer.js";
import { RerankParseError } from "./rerank-parse-error.js";
import type { NodePostprocessor, PostprocessOptions } from "./types.js";

export interface LLMRerankOptions {
  /** The model that scores the documents. Required: there is no global default. */
  llm: LLM;
  /** How many nodes to return, best first. @default 10 */
  topN?: number;
  /** How many nodes go into one model call. @default 10 */
  choiceBatchSize?: number;
  /** Needs `{context_str}` and `{query_str}`. @default LlamaIndex's choice-select prompt */
  choiceSelectPrompt?: BasePromptTemplate;
  /**
   * What to do with a batch whose answer cannot be read: throw a {@link RerankParseError}, or keep that
   * batch's nodes in retrieval order (with their retrieval scores) after every node the model scored.
   * @default "error"
   */
  onParseError?: "error" | "keep_order";
  /** The most tokens each answer may take. @default 256 */
  maxTokens?: number;
  /**
   * The OpenTelemetry tracer of each call's GenAI span (under the active span: the query engine's
   * `ragsynth.postprocess`). @default trace.getTracer("ragsynth") (a no-op until an SDK is registered)
   */
  tracer?: Tracer | undefined;
  /**
   * Record each call's prompt and answer on its span, scrubbed of secrets, as the synthesizers do.
   * @default true only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is `true`
   */
  captureContent?: boolean | undefined;
}

const PROMPT_KEY = "choice_select_prompt";

function checkPrompt(prompt: BasePromptTemplate): BasePromptTemplate {
  const missing = ["context_str", "query_str"].filter((name) => !prompt.variables.includes(name));
  if (missing.length > 0) {
    throw new InvalidArgumentError({
      parameter: "choiceSelectPrompt",
      value: prompt.variables,
      expected: "have the variables {context_str} and {query_str}",
      hint: `Add ${missing.map((name) => `{${name}}`).join(" and ")} to the template.`,
    });
  }
  return prompt;
}

/**
 * Reranks nodes by asking the model which documents of each numbered batch answer the query, as
 * LlamaIndex's `LLMRerank` does: the node's score becomes the model's relevance (1–10), best first.
 * Differs from LlamaIndex: answers are parsed tolerantly and an unreadable one is an error or an
 * explicit fallback (`onParseError`), never a crash on `int()` or a silently wrong document.
 */
export class LLMRerank implements NodePostprocessor, PromptMixin {
  readonly name = "LLMRerank";
  readonly topN: number;
  readonly choiceBatchSize: number;
  readonly onParseError: "error" | "keep_order";
  private readonly llm: LLM;
  private readonly maxTokens: number;
  private readonly tokenizer: Tokenizer;
  private readonly tracer: Tracer;
  private readonly captureContent: boolean;
  private choiceSelectPrompt: BasePromptTemplate;

  constructor(options: LLMRerankOptions) {
    const {
      llm,
      topN = 10,
      choiceBatchSize = 10,
      choiceSelectPrompt = DEFAULT_CHOICE_SELECT_PROMPT,
      onParseError = "error",
      maxTokens = DEFAULT_NUM_OUTPUT,
      tracer,
      captureContent,
    } = optionsOf("options", options, "{ llm, topN?, choiceBatchSize?, … }");
    if (typeof llm?.complete !== "function") {
      throw new InvalidArgumentError({ parameter: "llm", value: llm, expected: "be an LLM" });
    }
    if (onParseError !== "error" && onParseError !== "keep_order") {
      throw new InvalidArgumentError({
        parameter: "onParseError",
        value: onParseError,
        expected: 'be "error" or "keep_order"',
      });
    }
    checkInteger("topN", topN, 1);
    checkInteger("choiceBatchSize", choiceBatchSize, 1);
    checkInteger("maxTokens", maxTokens, 1);
    this.llm = llm;
    this.topN = topN;
    this.choiceBatchSize = choiceBatchSize;
    this.maxTokens = maxTokens;
    this.choiceSelectPrompt = checkPrompt(choiceSelectPrompt);
    this.onParseError = onParseError;
    this.tokenizer = resolveTokenizer(llm.metadata.tokenizer);
    this.tracer = tracer ?? defaultTracer();
    this.captureContent = captureContent ?? captureContentFromEnv();
  }

  getPrompts(): Record<string, BasePromptTemplate> {
    return { [PROMPT_KEY]: this.choiceSelectPrompt };
  }

  updatePrompts(prompts: Record<string, BasePromptTemplate>): void {
    checkObject("prompts", prompts, "be an object of prompts by key, as getPrompts() returns them");
    for (const [key, prompt] of Object.entries(prompts)) {
      if (key !== PROMPT_KEY) {
        throw new InvalidArgumentError({
          parameter: "prompts",
          value: key,
          expected: `use a known key (${PROMPT_KEY})`,
        });
      }
      this.choiceSelectPrompt = checkPrompt(prompt);
    }
  }

  async postprocessNodes(
    nodes: NodeWithScore[],
    options: Partial<PostprocessOptions> = {},
  ): Promise<NodeWithScore[]> {
    checkNodesWithScore(nodes, "nodes");
    const { query, signal, onEvent, tokenizer } = optionsOf(
      "options",
      options,
      "{ query?, signal?, onEvent? }",
    );
    checkQuery(
      query,
      'The reranker asks the model which nodes answer the query, so it needs one: postprocessNodes(nodes, { query: "…" }).',
    );
    signal?.throwIfAborted();
    await prepareTracer(this.tracer);
    const started = performance.now();
    const scored: NodeWithScore[] = [];
    const fallback: NodeWithScore[] = [];
    const fallbackBatches: number[] = [];
    const ignoredLines: string[] = [];
    // Every batch is planned before the first call: a node that cannot fit the window alone fails up front.
    const helper = nodes.length === 0 ? undefined : this.createPromptHelper();
    const batches = helper ? this.planBatches(nodes, query, helper) : [];
    const count = batches.length;
    const path = helper ? this.callPath(helper, signal, onEvent) : undefined;
    for (const [index, batch] of batches.entries()) {
      signal?.throwIfAborted();
      const context = formatNodeBatch(batch.map((item) => item.node));
      const { text } = await callModel(
        path as ModelCallPath,
        this.choiceSelectPrompt,
        { context_str: context, query_str: query },
        { step: { kind: "rerank", index, count }, context, nodeIds: batch.map((item) => item.node.id) },
      );
      const parsed = parseChoiceSelectAnswer(text, batch.length);
      ignoredLines.push(...parsed.ignoredLines);
      const unreadable =
        parsed.malformedLines.length > 0 || (parsed.choices.length === 0 && text.trim() !== "");
      if (unreadable) {
        if (this.onParseError === "error") {
          throw new RerankParseError({ text, batchIndex: index, malformedLines: parsed.malformedLines });
        }
        fallback.push(...batch);
        fallbackBatches.push(index);
        continue;
      }
      for (const choice of parsed.choices) {
        const chosen = batch[choice.document - 1] as NodeWithScore;
        scored.push({ node: chosen.node, score: choice.relevance });
      }
    }
    // Array.prototype.sort is stable: equal relevance keeps the order the model listed.
    scored.sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
    const result = [...scored, ...fallback].slice(0, this.topN);
    onEvent?.({
      type: "postprocess-end",
      name: this.name,
      nodesBefore: nodes.length,
      nodesAfter: result.length,
      tokensBefore: countNodesTokens(nodes, tokenizer ? resolveTokenizer(tokenizer) : this.tokenizer),
      tokensAfter: countNodesTokens(result, tokenizer ? resolveTokenizer(tokenizer) : this.tokenizer),
      durationMs: performance.now() - started,
      detail: { llmCalls: count, chosen: scored.length, topN: this.topN, ignoredLines, fallbackBatches },
    });
    return result;
  }

  /**
   * The budget of the rerank calls: the model's window with `maxTokens` reserved for each answer.
   * @throws ContextOverflowError when `maxTokens` alone fills the window
   */
  private createPromptHelper(): PromptHelper {
    const { contextWindow } = this.llm.metadata;
    if (this.maxTokens >= contextWindow) {
      throw new ContextOverflowError({
        contextWindow,
        numOutput: this.maxTokens,
        promptTokens: 0,
        what: "The choice-select prompt",
        hint: "maxTokens fills the model's window on its own: lower maxTokens or raise the model's contextWindow.",
      });
    }
    return new PromptHelper({ contextWindow, numOutput: this.maxTokens, tokenizer: this.tokenizer });
  }

  /** The synthesizers' call path for this rerank: counted, evented, traced and capped at `maxTokens`. */
  private callPath(
    helper: PromptHelper,
    signal: AbortSignal | undefined,
    onEvent: RagsynthEventHandler | undefined,
  ): ModelCallPath {
    const { llm, tracer, captureContent } = this;
    const usage: SynthesisUsage = { llmCalls: 0, promptTokens: 0, completionTokens: 0, retries: 0 };
    return {
      mode: "rerank",
      llm,
      promptHelper: helper.withImageRuleOf(llm.metadata),
      systemPrompt: undefined,
      signal: mergeAbortSignals(signal),
      // The model's shared limiter: reranking and synthesis with one model share its slots.
      limiter: limiterForModel(llm),
      usage,
      trace: {
        startCall: (step, request) =>
          startCallTrace(tracer, step, request, { mode: "rerank", captureContent }),
      },
      emit: (event) => onEvent?.(event),
      now: () => performance.now(),
    };
  }

  /**
   * Splits the nodes into batches of at most `choiceBatchSize` whose prompt, counted as sent, leaves room for
   * `maxTokens` ({@link PromptHelper.roomBeside}), so no over-window prompt is ever sent; a node too large on
   * its own is a ContextOverflowError.
   */
  private planBatches(
    nodes: readonly NodeWithScore[],
    query: string,
    helper: PromptHelper,
  ): NodeWithScore[][] {
    const promptTokensOf = (batch: readonly NodeWithScore[]) =>
      helper.countPrompt(this.choiceSelectPrompt, {
        llm: this.llm,
        variables: { context_str: formatNodeBatch(batch.map((item) => item.node)), query_str: query },
      }).total;
    const fits = (batch: readonly NodeWithScore[]) => helper.roomBeside(promptTokensOf(batch)) >= 0;
    const batches: NodeWithScore[][] = [];
    let current: NodeWithScore[] = [];
    for (const node of nodes) {
      const candidate = [...current, node];
      if (current.length < this.choiceBatchSize && fits(candidate)) {
        current = candidate;
        continue;
      }
      if (current.length > 0) batches.push(current);
      if (!fits([node])) {
        throw new ContextOverflowError({
          contextWindow: helper.contextWindow,
          numOutput: helper.numOutput,
          promptTokens: promptTokensOf([node]),
          what: `The choice-select prompt with node ${JSON.stringify(node.node.id)} alone`,
          hint: "Raise the model's contextWindow, lower maxTokens, or shorten the nodes before reranking (a splitter or the SentenceEmbeddingOptimizer).",
        });
      }
      current = [node];
    }
    if (current.length > 0) batches.push(current);
    return batches;
  }
}
