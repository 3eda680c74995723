import { checkInteger } from "../errors/check-integer.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEventHandler } from "../events/events.js";
import { DEFAULT_NUM_OUTPUT, type LLM } from "../llm/types.js";
import { predict, preparePrompt } from "../prompt/predict.js";
import type { BasePromptTemplate, PromptMixin } from "../prompt/prompt-template.js";
import { countPromptTokens } from "../prompt/render-prompt.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { limiterForModel } from "../util/concurrency-limiter.js";
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
  private choiceSelectPrompt: BasePromptTemplate;

  constructor({
    llm,
    topN = 10,
    choiceBatchSize = 10,
    choiceSelectPrompt = DEFAULT_CHOICE_SELECT_PROMPT,
    onParseError = "error",
    maxTokens = DEFAULT_NUM_OUTPUT,
  }: LLMRerankOptions) {
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
  }

  getPrompts(): Record<string, BasePromptTemplate> {
    return { [PROMPT_KEY]: this.choiceSelectPrompt };
  }

  updatePrompts(prompts: Record<string, BasePromptTemplate>): void {
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
    { query, signal, onEvent, tokenizer }: Partial<PostprocessOptions> = {},
  ): Promise<NodeWithScore[]> {
    if (typeof query !== "string" || query.trim() === "") {
      throw new InvalidArgumentError({
        parameter: "query",
        value: query,
        expected: "be a non-empty string",
        hint: 'The reranker asks the model which nodes answer the query, so it needs one: postprocessNodes(nodes, { query: "…" }).',
      });
    }
    signal?.throwIfAborted();
    const started = performance.now();
    const scored: NodeWithScore[] = [];
    const fallback: NodeWithScore[] = [];
    const fallbackBatches: number[] = [];
    const ignoredLines: string[] = [];
    // Every batch is planned before the first call: a node that cannot fit the window alone fails up front.
    const batches = this.planBatches(nodes, query);
    const count = batches.length;
    for (const [index, batch] of batches.entries()) {
      signal?.throwIfAborted();
      const text = await this.callModel(batch, { query, index, count, signal, onEvent });
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

  /** The prompt's tokens for one batch, counted as sent. */
  private promptTokensOf(batch: readonly NodeWithScore[], query: string): number {
    const variables = { context_str: formatNodeBatch(batch.map((item) => item.node)), query_str: query };
    const rendered = preparePrompt({ llm: this.llm, prompt: this.choiceSelectPrompt, variables });
    return countPromptTokens(rendered, this.tokenizer).total;
  }

  /**
   * Splits the nodes into batches of at most `choiceBatchSize` whose prompt plus `maxTokens` fits the model's
   * window, so no over-window prompt is ever sent; a node too large on its own is a ContextOverflowError.
   */
  private planBatches(nodes: readonly NodeWithScore[], query: string): NodeWithScore[][] {
    const { contextWindow } = this.llm.metadata;
    const fits = (batch: readonly NodeWithScore[]) =>
      this.promptTokensOf(batch, query) + this.maxTokens <= contextWindow;
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
          contextWindow,
          numOutput: this.maxTokens,
          promptTokens: this.promptTokensOf([node], query),
          what: `The choice-select prompt with node ${JSON.stringify(node.node.id)} alone`,
          hint: "Raise the model's contextWindow, lower maxTokens, or shorten the nodes before reranking (a splitter or the SentenceEmbeddingOptimizer).",
        });
      }
      current = [node];
    }
    if (current.length > 0) batches.push(current);
    return batches;
  }

  private async callModel(
    batch: NodeWithScore[],
    {
      query,
      index,
      count,
      signal,
      onEvent,
    }: {
      query: string;
      index: number;
      count: number;
      signal?: AbortSignal | undefined;
      onEvent?: RagsynthEventHandler | undefined;
    },
  ): Promise<string> {
    const variables = { context_str: formatNodeBatch(batch.map((item) => item.node)), query_str: query };
    const step = { kind: "rerank", index, count } as const;
    const promptTokens = onEvent
      ? countPromptTokens(
          preparePrompt({ llm: this.llm, prompt: this.choiceSelectPrompt, variables }),
          this.tokenizer,
        ).total
      : 0;
    onEvent?.({
      type: "llm-call-start",
      mode: "rerank",
      step,
      promptTokens,
      contextTokens: this.tokenizer.count(variables.context_str),
    });
    const started = performance.now();
    try {
      const result = await predict({
        llm: this.llm,
        prompt: this.choiceSelectPrompt,
        variables,
        maxTokens: this.maxTokens,
        signal,
        // The model's shared limiter: reranking and synthesis with one model share its slots.
        limiter: limiterForModel(this.llm),
      });
      onEvent?.({
        type: "llm-call-end",
        mode: "rerank",
        step,
        promptTokens: result.usage?.promptTokens ?? promptTokens,
        completionTokens: result.usage?.completionTokens ?? this.tokenizer.count(result.text),
        latencyMs: performance.now() - started,
        ...(result.usage ? { usage: result.usage } : {}),
      });
      return result.text;
    } catch (error) {
      onEvent?.({
        type: "llm-call-end",
        mode: "rerank",
        step,
        promptTokens,
        completionTokens: 0,
        latencyMs: performance.now() - started,
        error,
      });
      throw error;
    }
  }
}
