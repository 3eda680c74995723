import { PromptHelper } from "../budget/prompt-helper.js";
import type { CitationJudge, CitationJudgeUsage, CitationVerdict } from "../citations/citation-judge.js";
import { checkInteger } from "../errors/check-integer.js";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { LLM, LLMUsage } from "../llm/types.js";
import { predict } from "../prompt/predict.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import { FAITHFULNESS_EVAL_PROMPT } from "./judge-prompts.js";
import { parseYesNo } from "./parse-judge-reply.js";

/** Options of {@link llmCitationJudge}. */
export interface LLMCitationJudgeOptions {
  /** The judging model (wrap it with `withCallCache` to pay for each verdict once). */
  judge: LLM;
  /** The judge's budget: a piece too long for its window is cut to fit. @default the judge's own (`fromLLMMetadata`) */
  promptHelper?: PromptHelper | undefined;
  /** Judge calls in flight at once. @default 4 */
  concurrency?: number | undefined;
  /**
   * The most calls for one answer's citations (distinct sentence–piece pairs); pairs past it get no verdict (their
   * support falls back to the scores, with `judgeError` saying why). @default 32
   */
  maxCalls?: number | undefined;
}

/**
 * A {@link CitationJudge} that asks a model LlamaIndex's faithfulness question (its `FAITHFULNESS_EVAL_PROMPT`, word
 * for word) about each cited sentence (as the "information") and the one piece it cites (as the "context"): YES
 * supports it, NO does not. One call per distinct pair, `concurrency` at a time, at most `maxCalls` per answer;
 * a reply that is neither YES nor NO, or a failed call, is no verdict (never a pass).
 * @example new CitationQueryEngine({ retriever, llm, judge: llmCitationJudge({ judge: llm }) })
 */
export function llmCitationJudge(options: LLMCitationJudgeOptions): CitationJudge {
  const {
    judge,
    promptHelper,
    concurrency = 4,
    maxCalls = 32,
  } = optionsOf("options", options, "{ judge: LLM, promptHelper?, concurrency?, maxCalls? }");
  if (typeof judge?.complete !== "function") {
    throw new InvalidArgumentError({
      parameter: "judge",
      value: judge,
      expected: "be an LLM (an object with complete(prompt))",
      hint: 'new OpenAILike({ model: "gpt-4o-mini" }) is one.',
    });
  }
  checkInteger("concurrency", concurrency, 1);
  checkInteger("maxCalls", maxCalls, 0);
  const budget = promptHelper ?? PromptHelper.fromLLMMetadata(judge.metadata);
  const prompt = FAITHFULNESS_EVAL_PROMPT;

  async function ask(sentence: string, source: string, signal: AbortSignal, usage: CitationJudgeUsage) {
    const [context = ""] = budget.truncate(prompt, [source], {
      llm: judge,
      variables: { query_str: sentence },
    });
    const variables = { query_str: sentence, context_str: context };
    let reported: LLMUsage | undefined;
    const result = await predict({
      llm: judge,
      prompt,
      variables,
      maxTokens: budget.numOutput,
      signal,
      onUsage: (update) => {
        reported = { ...reported, ...update };
      },
    });
    const spent = result.usage ?? reported;
    usage.calls += 1;
    usage.promptTokens += spent?.promptTokens ?? budget.countPrompt(prompt, { llm: judge, variables }).total;
    usage.completionTokens += spent?.completionTokens ?? budget.tokenizer.count(result.text);
    const parsed = parseYesNo(result.text);
    return parsed.ok
      ? { supported: parsed.score === 1 }
      : { supported: null, error: `unreadable judge reply: ${parsed.error}` };
  }

  return {
    async judgeCitations(pairs, { signal } = {}) {
      const usage: CitationJudgeUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
      const keyOf = (pair: { sentence: string; source: string }) =>
        JSON.stringify([pair.sentence, pair.source]);
      const distinct = [...new Map(pairs.map((pair) => [keyOf(pair), pair])).values()];
      const asked = distinct.slice(0, maxCalls);
      const verdicts = await mapConcurrent(
        asked,
        concurrency,
        signal ?? new AbortController().signal,
        async (pair, _index, taskSignal): Promise<CitationVerdict> => {
          try {
            return await ask(pair.sentence, pair.source, taskSignal, usage);
          } catch (error) {
            if (taskSignal.aborted) throw error;
            usage.calls += 1;
            return {
              supported: null,
              error: `the judge call failed: ${error instanceof Error ? error.message : String(error)}`,
            };
          }
        },
      );
      const byKey = new Map(asked.map((pair, index) => [keyOf(pair), verdicts[index] as CitationVerdict]));
      const skipped: CitationVerdict = {
        supported: null,
        error: `not judged: over the judge's ${maxCalls} calls for one answer (maxCalls)`,
      };
      return { verdicts: pairs.map((pair) => byKey.get(keyOf(pair)) ?? skipped), usage };
    },
  };
}
