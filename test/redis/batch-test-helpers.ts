import type { FakeOpenAIRequest } from "ragsynth/testing";
import { startCli, waitForOutput } from "../cli/run-cli.js";

/** Polls `predicate` every 50 ms until it holds. */
export async function waitUntil(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const start = Date.now();
  while (!(await predicate())) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The first request of every prompt the server received more than once. */
export function duplicatePrompts(requests: readonly FakeOpenAIRequest[]): FakeOpenAIRequest[] {
  const seen = new Map<string, FakeOpenAIRequest>();
  const duplicates: FakeOpenAIRequest[] = [];
  for (const request of requests) {
    if (request.prompt === undefined) continue;
    const first = seen.get(request.prompt);
    if (first && !duplicates.includes(first)) duplicates.push(first);
    if (!first) seen.set(request.prompt, request);
  }
  return duplicates;
}

/** The most timestamps in any window of `windowMs` (sliding: every window that starts at a timestamp). */
export function maxPerWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && (sorted[end] as number) < (sorted[start] as number) + windowMs) end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

/**
 * Starts `count` `ragsynth worker` processes on `queue`, opening indexes under `indexRoot`, and resolves once each
 * says it is taking jobs. Each is added to `children` (for the caller's afterAll to kill) as soon as it starts.
 */
export async function startWorkers(
  count: number,
  {
    redisUrl,
    queue,
    indexRoot,
    env,
    children,
    args = [],
  }: {
    redisUrl: string;
    queue: string;
    indexRoot: string;
    env: Record<string, string>;
    children: StartedCli[];
    /** More flags, e.g. `--concurrency 2` or `--allow-llm …`. */
    args?: string[];
  },
): Promise<StartedCli[]> {
  const started = Array.from({ length: count }, () => {
    const worker = startCli(
      ["worker", "--redis", redisUrl, "--queue", queue, "--index-root", indexRoot, ...args],
      { env },
    );
    children.push(worker);
    return worker;
  });
  await Promise.all(
    started.map((worker) =>
      waitForOutput(worker.output, (out) => out.stderr.includes("taking jobs"), 60_000),
    ),
  );
  return started;
}

type StartedCli = ReturnType<typeof startCli>;
