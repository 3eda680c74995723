import { checkRedis, createBullMQRunner } from "../batch/index.js";
import type { BatchItem, JsonValue } from "../batch/types.js";
import { hideUrlPassword } from "../errors/scrub-secrets.js";
import type { EvalQuestion } from "../eval/eval-questions.js";
import type { QuestionResult } from "../eval/eval-result.js";
import { sha256Hex } from "../util/sha256.js";
import type { EvalRunConfig } from "./eval-run-config.js";

/**
 * `ragsynth eval --redis`: each question becomes one `eval-question` job on the BullMQ queue, answered by any
 * `ragsynth worker` (the same scoring as the embedded run), and the results come back in the questions' order.
 * The run is named by the questions file and the settings, and each job by its question's content: running the
 * same command again collects what is finished and adds only what is missing or changed (a Ctrl-C stops only
 * this submitter; the jobs keep running). Calls are cached in the workers' Redis.
 */
export async function runEvalOnRedis({
  redisUrl,
  queueName,
  questionsPath,
  questions,
  config,
  signal,
  io,
  onProgress,
}: {
  redisUrl: string;
  queueName: string | undefined;
  questionsPath: string;
  questions: readonly EvalQuestion[];
  config: EvalRunConfig;
  signal: AbortSignal;
  /** Where the note about jobs left running on the workers goes. */
  io: { stderr: { write(text: string): unknown } };
  onProgress: (finished: number) => void;
}): Promise<QuestionResult[]> {
  await checkRedis({ redisUrl, signal });
  const runner = createBullMQRunner({ redisUrl, ...(queueName ? { queueName } : {}) });
  const runId = `eval-${sha256Hex(JSON.stringify([questionsPath, config])).slice(0, 16)}`;
  const items: BatchItem[] = questions.map((question) => ({
    ...(question as unknown as Record<string, JsonValue>),
    id: `${question.id}@${sha256Hex(JSON.stringify(question)).slice(0, 8)}`,
  }));
  let outcome: Awaited<ReturnType<typeof runner.run>>;
  try {
    outcome = await runner.run({
      runId,
      kind: "eval-question",
      config,
      items,
      signal,
      onProgress: (progress) => onProgress(progress.done + progress.failed + progress.skipped),
    });
  } catch (error) {
    if (signal.aborted) {
      io.stderr.write(
        `ragsynth: stopped waiting; the eval jobs of run ${runId} keep running on the workers of ${hideUrlPassword(redisUrl)}. ` +
          "Run the same command again to collect the results.\n",
      );
    }
    throw error;
  } finally {
    await runner.close();
  }
  const failed = outcome.results.find((result) => !result.ok);
  // A question fails as a whole only when its retrieval did (a mode's failure is recorded in its result).
  if (failed) {
    const id = questions[outcome.results.indexOf(failed)]?.id ?? failed.id;
    throw new Error(
      `Question ${id} failed on a worker (${failed.error?.code ?? "unknown"}): ${failed.error?.message ?? "no message"}`,
    );
  }
  // A job's item id carries its question's content hash; the report names the question as the file does.
  return outcome.results.map((result, position) => ({
    ...(result.value as unknown as QuestionResult),
    id: questions[position]?.id ?? result.id,
  }));
}
