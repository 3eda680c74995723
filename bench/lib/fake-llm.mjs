// One fake model behind two faces: the same latency model, the same answers (by call index) and the
// same prompt accounting for ragsynth and for llamaindex. Each adapter only translates the interface.
import { textOfTokens } from "./fixtures.mjs";
import { cl100kCount } from "./tokens.mjs";

const answerCache = new Map();

/** The answer to call number `index`: ~`tokens` cl100k tokens, unique per index, deterministic. */
export function answerFor(index, tokens = 50) {
  const key = `${index}:${tokens}`;
  let answer = answerCache.get(key);
  if (answer === undefined) {
    answer = `Answer ${index + 1}: ${textOfTokens(9_001 + index, tokens - 5)}`;
    answerCache.set(key, answer);
  }
  return answer;
}

const sleep = (ms) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

/**
 * The shared core. `latencyMs` is the whole time of a non-streaming call; a streaming call waits
 * `ttftMs` before its first delta, then yields one word per `deltaMs`.
 */
export class FakeModel {
  constructor({ latencyMs = 0, ttftMs = latencyMs, deltaMs = 0, answerTokens = 50 } = {}) {
    this.latencyMs = latencyMs;
    this.ttftMs = ttftMs;
    this.deltaMs = deltaMs;
    this.answerTokens = answerTokens;
    this.calls = [];
    this.active = 0;
    this.peakConcurrency = 0;
  }

  #begin(prompt, streamed) {
    const call = {
      index: this.calls.length,
      prompt,
      streamed,
      start: performance.now(),
      end: Number.NaN,
      firstTokenAt: Number.NaN,
    };
    this.calls.push(call);
    this.active++;
    this.peakConcurrency = Math.max(this.peakConcurrency, this.active);
    return call;
  }

  #finish(call) {
    call.end = performance.now();
    this.active--;
  }

  async complete(prompt) {
    const call = this.#begin(prompt, false);
    await sleep(this.latencyMs);
    this.#finish(call);
    return answerFor(call.index, this.answerTokens);
  }

  async *stream(prompt) {
    const call = this.#begin(prompt, true);
    try {
      await sleep(this.ttftMs);
      const words = answerFor(call.index, this.answerTokens).split(/(?<= )/);
      for (let i = 0; i < words.length; i++) {
        if (i === 0) call.firstTokenAt = performance.now();
        else await sleep(this.deltaMs);
        yield words[i];
      }
    } finally {
      this.#finish(call);
    }
  }

  /**
   * Every prompt received, counted with cl100k after the run (counting inside a call would be billed
   * to the library under test): the largest, and how many exceed `budget` tokens, and how many exceed the whole `contextWindow`.
   */
  promptStats(budget, contextWindow = Number.POSITIVE_INFINITY) {
    const counts = this.calls.map((call) => cl100kCount(call.prompt));
    return {
      calls: counts.length,
      largestPrompt: counts.length === 0 ? 0 : Math.max(...counts),
      overBudget: counts.filter((count) => count > budget).length,
      overWindow: counts.filter((count) => count > contextWindow).length,
    };
  }

  /**
   * The tree level of every call: 1 for a call whose prompt holds no earlier answer, else one more than
   * the highest level among the answers it holds (answers are tagged "Answer N:" by call index).
   * Returns `{ rounds, callsPerRound }`.
   */
  rounds() {
    const levels = [];
    for (const call of this.calls) {
      let level = 1;
      for (const match of call.prompt.matchAll(/Answer (\d+):/g)) {
        const source = levels[Number(match[1]) - 1];
        if (source !== undefined) level = Math.max(level, source + 1);
      }
      levels.push(level);
    }
    const rounds = levels.length === 0 ? 0 : Math.max(...levels);
    const callsPerRound = Array.from(
      { length: rounds },
      (_, i) => levels.filter((level) => level === i + 1).length,
    );
    return { rounds, callsPerRound };
  }

  /** Time the model itself spent before `until`: the union of its calls' busy intervals. */
  busyTimeBefore(until) {
    const intervals = this.calls
      .map((call) => [call.start, Math.min(until, call.streamed ? call.firstTokenAt : call.end)])
      .filter(([start, end]) => Number.isFinite(end) && end > start)
      .sort((a, b) => a[0] - b[0]);
    let busy = 0;
    let coveredTo = Number.NEGATIVE_INFINITY;
    for (const [start, end] of intervals) {
      if (end <= coveredTo) continue;
      busy += end - Math.max(start, coveredTo);
      coveredTo = end;
    }
    return busy;
  }
}

/** ragsynth's structural `LLM` contract, completion-style (so both libraries send plain prompts). */
export function ragsynthLLM(model, { contextWindow, maxOutputTokens }) {
  const joinMessages = (messages) => messages.map((message) => message.content).join("\n");
  return {
    metadata: { model: "bench-fake", contextWindow, maxOutputTokens, isChatModel: false },
    complete: async (prompt) => ({ text: await model.complete(prompt) }),
    streamComplete: (prompt) => model.stream(prompt),
    chat: async (messages) => ({ text: await model.complete(joinMessages(messages)) }),
    streamChat: (messages) => model.stream(joinMessages(messages)),
  };
}

/** llamaindex's `LLM` interface (`complete`/`chat`, streaming as async iterables of chunks). */
export function peerLLM(model, { contextWindow }) {
  const textOf = (content) =>
    typeof content === "string"
      ? content
      : content
          .filter((part) => part.type === "text")
          .map((part) => part.text)
          .join("\n\n");
  async function* completionChunks(prompt) {
    for await (const delta of model.stream(prompt)) yield { text: delta, raw: null };
  }
  async function* chatChunks(prompt) {
    for await (const delta of model.stream(prompt)) yield { delta, raw: null };
  }
  return {
    metadata: { model: "bench-fake", temperature: 0, topP: 1, contextWindow, tokenizer: undefined },
    supportToolCall: false,
    async complete({ prompt, stream }) {
      if (stream) return completionChunks(textOf(prompt));
      return { text: await model.complete(textOf(prompt)), raw: null };
    },
    async chat({ messages, stream }) {
      const prompt = messages.map((message) => textOf(message.content)).join("\n");
      if (stream) return chatChunks(prompt);
      return { message: { role: "assistant", content: await model.complete(prompt) }, raw: null };
    },
  };
}
