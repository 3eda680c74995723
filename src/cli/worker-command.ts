import { resolve } from "node:path";
import { urlCredentials } from "../errors/scrub-secrets.js";
import { startQuestionWorker } from "../question-run/question-worker.js";
import type { WorkerOptions } from "./command-options.js";
import type { CommandContext } from "./io.js";
import { questionProcessors } from "./models.js";
import { EXIT_INTERRUPTED, EXIT_OK } from "./usage-error.js";

/**
 * `ragsynth worker`: takes batch jobs from the Redis queue until Ctrl-C (or SIGTERM), then finishes the jobs
 * in hand and exits. Model calls are cached in the same Redis, so a job retried anywhere pays only for
 * what no worker finished. API keys come from this process's environment and never go to Redis. Jobs are
 * untrusted: a job may only choose among the models this worker allows (`--llm`, `--allow-llm`), and only
 * indexes under `--index-root` are opened. A Redis that is down or refuses the credentials is one error, at once.
 */
export async function runWorker(options: WorkerOptions, { io, signal }: CommandContext): Promise<number> {
  const worker = await startQuestionWorker({
    redisUrl: options.redis,
    queueName: options.queue,
    concurrency: options.concurrency,
    lockDurationMs: options.lockDurationMs,
    processors: (store) =>
      questionProcessors(io, {
        store,
        secrets: [...urlCredentials(options.redis), ...urlCredentials(options.store)],
        trust: {
          command: "worker",
          llm: options.llm ?? null,
          allowLLM: options.allowLLM,
          embed: options.embed ?? null,
          indexRoots:
            options.indexRoots.length > 0
              ? options.indexRoots.map((root) => resolve(io.cwd, root))
              : [io.cwd],
          store: options.store,
        },
      }),
    onJob: options.verbose
      ? ({ jobId, ok, error }) =>
          io.stderr.write(`ragsynth worker: ${jobId} ${ok ? "done" : `failed: ${error}`}\n`)
      : undefined,
    signal,
  });
  try {
    await worker.ready;
    io.stderr.write(
      `ragsynth worker: taking jobs from queue ${options.queue ?? "ragsynth"} (${options.concurrency} at once); Ctrl-C to stop.\n`,
    );
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    io.stderr.write("ragsynth worker: finishing the jobs in hand…\n");
  } finally {
    await worker.close();
  }
  // Stopped by Ctrl-C (130) or SIGTERM (143, set by main): the exit code says so, after the jobs in hand finished.
  return signal.aborted ? EXIT_INTERRUPTED : EXIT_OK;
}
