import { createEmbeddedRunner } from "../batch/embedded-runner.js";
import type { JsonValue } from "../batch/types.js";
import type { EvalQuestion } from "./eval-questions.js";
import type { QuestionResult } from "./eval-result.js";

/** Runs the questions on the embedded batch runner, so a killed run resumes where it stopped. */
export async function resumableRun({
  questions,
  resultsFile,
  runKey,
  concurrency,
  signal,
  evaluateOne,
}: {
  questions: readonly EvalQuestion[];
  resultsFile: string;
  runKey: string;
  concurrency: number;
  signal: AbortSignal;
  evaluateOne: (question: EvalQuestion, signal: AbortSignal) => Promise<QuestionResult>;
}): Promise<QuestionResult[]> {
  const itemId = (question: EvalQuestion) => `${question.id}@${runKey}`;
  const byId = new Map(questions.map((question) => [itemId(question), question]));
  const errors = new Map<string, unknown>();
  const runner = createEmbeddedRunner({
    out: resultsFile,
    concurrency,
    attempts: 1,
    processors: {
      "eval-question": async (item, { signal: itemSignal }) => {
        try {
          const result = await evaluateOne(byId.get(item.id) as EvalQuestion, itemSignal);
          return { value: result as unknown as JsonValue };
        } catch (error) {
          errors.set(item.id, error);
          throw error;
        }
      },
    },
  });
  const outcome = await runner.run({
    runId: resultsFile,
    kind: "eval-question",
    items: questions.map((question) => ({ id: itemId(question) })),
    signal,
  });
  signal.throwIfAborted();
  const failed = outcome.results.find((result) => !result?.ok);
  // A question fails as a whole only when its retrieval did (mode failures are recorded in its result).
  if (failed)
    throw errors.get(failed.id) ?? new Error(failed.error?.message ?? `question ${failed.id} failed`);
  return outcome.results.map((result) => result.value as unknown as QuestionResult);
}
