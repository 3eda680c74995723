import type { PromptHelper } from "../budget/prompt-helper.js";
import type { LLM, LLMUsage } from "../llm/types.js";
import { predict } from "../prompt/predict.js";
import { TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import type { EvalUsage, JudgeVerdict } from "./eval-result.js";
import {
  CORRECTNESS_EVAL_PROMPT,
  CORRECTNESS_THRESHOLD,
  FAITHFULNESS_EVAL_PROMPT,
  FAITHFULNESS_REFINE_PROMPT,
  NO_REFERENCE,
  RELEVANCY_EVAL_PROMPT,
  RELEVANCY_REFINE_PROMPT,
  relevancyQuery,
} from "./judge-prompts.js";
import { type ParsedReply, parseScore, parseYesNo } from "./parse-judge-reply.js";

/** The LlamaIndex evaluators {@link judgeAnswer} can run. */
export const JUDGE_NAMES = ["faithfulness", "relevancy", "correctness"] as const;
export type JudgeName = (typeof JUDGE_NAMES)[number];

/** Options of {@link judgeAnswer}. */
export interface JudgeAnswerOptions {
  /** The judging model (wrap it with `withCallCache` to pay for each verdict once). */
  judge: LLM;
  /** The judge's budget: every judge prompt is packed or cut to fit its window. */
  promptHelper: PromptHelper;
  query: string;
  answer: string;
  /** The retrieved texts the answer was written from (faithfulness and relevancy). */
  contexts: readonly string[];
  /** The reference answer (correctness); without one, LlamaIndex's "(NO REFERENCE ANSWER SUPPLIED)" is sent. */
  reference?: string | undefined;
  /** @default all three */
  judges?: readonly JudgeName[];
  signal?: AbortSignal;
}

/**
 * Runs LlamaIndex's faithfulness, relevancy and correctness evaluators on one answer, with their prompt texts.
 * Faithfulness and relevancy ask YES/NO over the contexts, packed into as few calls as fit the judge's window
 * (LlamaIndex's compact-and-refine); correctness asks for a 1–5 score (passing at 4), with the reference and the
 * answer each cut to an equal share of the window when they do not fit. A reply that cannot be read, a failed
 * call or an empty answer is a verdict with `passing: null` and an `error`: counted as a failure, never a pass.
 */
export async function judgeAnswer({
  judge,
  promptHelper,
  query,
  answer,
  contexts,
  reference,
  judges = JUDGE_NAMES,
  signal,
}: JudgeAnswerOptions): Promise<Record<string, JudgeVerdict>> {
  const verdicts: Record<string, JudgeVerdict> = {};
  for (const name of judges) {
    if (answer.trim() === "") {
      verdicts[name] = failed("there is no answer to judge (the mode failed or answered nothing)", NO_USAGE);
      continue;
    }
    try {
      verdicts[name] =
        name === "correctness"
          ? await correctness({ judge, promptHelper, query, answer, reference, signal })
          : await yesNoOverContexts({ name, judge, promptHelper, query, answer, contexts, signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      verdicts[name] = failed(
        `the judge call failed: ${error instanceof Error ? error.message : String(error)}`,
        spentBy(error),
      );
    }
  }
  return verdicts;
}

const NO_USAGE: EvalUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };

function failed(error: string, usage: EvalUsage, feedback = ""): JudgeVerdict {
  return { passing: null, score: null, feedback, error, usage };
}

function verdictOf(
  parsed: ParsedReply,
  reply: string,
  usage: EvalUsage,
  passing: (score: number) => boolean,
): JudgeVerdict {
  if (!parsed.ok) return failed(`unreadable judge reply: ${parsed.error}`, usage, reply);
  return { passing: passing(parsed.score), score: parsed.score, feedback: parsed.feedback, usage };
}

async function yesNoOverContexts({
  name,
  judge,
  promptHelper,
  query,
  answer,
  contexts,
  signal,
}: {
  name: "faithfulness" | "relevancy";
  judge: LLM;
  promptHelper: PromptHelper;
  query: string;
  answer: string;
  contexts: readonly string[];
  signal: AbortSignal | undefined;
}): Promise<JudgeVerdict> {
  if (contexts.every((context) => context.trim() === "")) {
    return failed("there is no retrieved context to judge against", NO_USAGE);
  }
  // LlamaIndex builds a summary index of bare documents and queries it in compact mode: the same here.
  const synthesizer = getResponseSynthesizer({
    llm: judge,
    responseMode: "compact",
    promptHelper,
    textQaTemplate: name === "faithfulness" ? FAITHFULNESS_EVAL_PROMPT : RELEVANCY_EVAL_PROMPT,
    refineTemplate: name === "faithfulness" ? FAITHFULNESS_REFINE_PROMPT : RELEVANCY_REFINE_PROMPT,
    emptyResponse: "",
  });
  const response = await synthesizer.synthesize({
    query: name === "faithfulness" ? answer : relevancyQuery(query, answer),
    nodes: contexts.map((text) => ({ node: new TextNode({ text }) })),
    ...(signal ? { signal } : {}),
  });
  const usage = {
    calls: response.usage.llmCalls,
    promptTokens: response.usage.promptTokens,
    completionTokens: response.usage.completionTokens,
  };
  return verdictOf(parseYesNo(response.response), response.response, usage, (score) => score === 1);
}

async function correctness({
  judge,
  promptHelper,
  query,
  answer,
  reference,
  signal,
}: {
  judge: LLM;
  promptHelper: PromptHelper;
  query: string;
  answer: string;
  reference: string | undefined;
  signal: AbortSignal | undefined;
}): Promise<JudgeVerdict> {
  // The reference and the answer share what the query and the template leave of the window.
  const [referenceText, answerText] = promptHelper.truncate(
    CORRECTNESS_EVAL_PROMPT,
    [reference ?? NO_REFERENCE, answer],
    {
      llm: judge,
      variables: { query },
    },
  );
  const variables = { query, reference_answer: referenceText ?? "", generated_answer: answerText ?? "" };
  let reported: LLMUsage | undefined;
  const result = await predict({
    llm: judge,
    prompt: CORRECTNESS_EVAL_PROMPT,
    variables,
    maxTokens: promptHelper.numOutput,
    ...(signal ? { signal } : {}),
    onUsage: (usage) => {
      reported = { ...reported, ...usage };
    },
  });
  const usage = result.usage ?? reported;
  const spent = {
    calls: 1,
    promptTokens:
      usage?.promptTokens ??
      promptHelper.countPrompt(CORRECTNESS_EVAL_PROMPT, { llm: judge, variables }).total,
    completionTokens: usage?.completionTokens ?? promptHelper.tokenizer.count(result.text),
  };
  return verdictOf(parseScore(result.text), result.text, spent, (score) => score >= CORRECTNESS_THRESHOLD);
}

function spentBy(error: unknown): EvalUsage {
  const usage = (error as { usage?: { llmCalls?: number; promptTokens?: number; completionTokens?: number } })
    .usage;
  return {
    calls: usage?.llmCalls ?? 1,
    promptTokens: usage?.promptTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
  };
}
