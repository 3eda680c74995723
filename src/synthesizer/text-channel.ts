import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

/** A single-consumer queue of text deltas, exposed as an `AsyncIterable`. */
export interface TextChannel {
  push(delta: string): void;
  /** Ends the stream after the queued deltas. */
  close(): void;
  /** Ends the stream with an error, thrown to the consumer after the queued deltas. */
  fail(error: unknown): void;
  readonly iterable: AsyncIterable<string>;
}

/**
 * Creates a {@link TextChannel}. The iterable can be consumed once (a second `for await` throws, as
 * openai-node's streams do); a consumer that stops early (`break`, `return`) calls `onCancel` so the
 * producer can abort the work behind it.
 */
export function createTextChannel(name: string, onCancel: () => void = () => {}): TextChannel {
  const queue: string[] = [];
  let state: "open" | "closed" | "failed" = "open";
  let failure: unknown;
  let wake: (() => void) | undefined;
  let consumed = false;
  let cancelled = false;

  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const iterator: AsyncIterator<string> = {
    async next() {
      while (queue.length === 0 && state === "open") {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      if (queue.length > 0) return { done: false, value: queue.shift() as string };
      if (state === "failed") throw failure;
      return { done: true, value: undefined };
    },
    async return() {
      queue.length = 0;
      if (state === "open" && !cancelled) {
        cancelled = true;
        onCancel();
      }
      return { done: true, value: undefined };
    },
  };

  return {
    push(delta) {
      if (state !== "open" || cancelled || delta === "") return;
      queue.push(delta);
      notify();
    },
    close() {
      if (state === "open") state = "closed";
      notify();
    },
    fail(error) {
      if (state !== "open") return;
      state = "failed";
      failure = error;
      notify();
    },
    iterable: {
      [Symbol.asyncIterator]() {
        if (consumed) {
          throw new InvalidArgumentError({
            parameter: name,
            value: "already consumed",
            expected: "be iterated only once",
            hint: "Collect the deltas in the first loop, or await `response` for the full text.",
          });
        }
        consumed = true;
        return iterator;
      },
    },
  };
}
