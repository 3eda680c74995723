import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type ChatMessage,
  type NodeWithScore,
  OpenAILike,
  type OpenAILikeOptions,
  RagsynthError,
  RESPONSE_MODES,
  TextNode,
} from "ragsynth";
import { createAbortError } from "ragsynth/extend";
import { type FakeOpenAIFaultRule, type FakeOpenAIRequest, MockLLM, seededRandom } from "ragsynth/testing";
import { afterAll, afterEach, beforeAll, expect } from "vitest";

/**
 * Registers a `process.on("unhandledRejection")` collector for the whole file and asserts after every
 * test that nothing was collected. Call once at the top level of a test file.
 */
export function collectUnhandledRejections(): unknown[] {
  const collected: unknown[] = [];
  const onRejection = (reason: unknown) => void collected.push(reason);
  beforeAll(() => void process.on("unhandledRejection", onRejection));
  afterEach(async () => {
    // Rejections are reported after a macrotask turn; give them one before looking.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(collected, "unhandled rejections").toEqual([]);
  });
  afterAll(() => void process.off("unhandledRejection", onRejection));
  return collected;
}

/** A retry sleep seam that records the delays asked for and resolves at once (rejecting on abort). */
export function instantSleep() {
  const delays: number[] = [];
  const sleep = (ms: number, signal?: AbortSignal) => {
    delays.push(ms);
    if (signal?.aborted) return Promise.reject(createAbortError(signal));
    return new Promise<void>((resolve) => setImmediate(resolve));
  };
  return { delays, sleep };
}

/** An {@link OpenAILike} talking to a fake server, with no real retry sleeps. */
export function fakeLLM(url: string, options: Partial<OpenAILikeOptions> = {}) {
  const clock = instantSleep();
  const llm = new OpenAILike({
    model: "fake-model",
    baseURL: url,
    apiKey: "sk-local-reliability",
    contextWindow: 4096,
    maxRetries: 6,
    _internal: { sleep: clock.sleep, random: () => 0.5 },
    ...options,
  });
  return { llm, delays: clock.delays };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The fault mix of the fault-injection suite, as proportions of all requests. */
export const FAULT_MIX = { rateLimit: 0.1, serverError: 0.05, drop: 0.02 } as const;

/**
 * Fault rules for request indexes `0..count-1`, drawn once from a seeded RNG so the mix is reproducible
 * by request index (10% 429 with Retry-After, 5% 500, 2% connections dropped mid-answer).
 * Returns the rules and the planned kind of each index.
 */
export function seededFaultPlan(
  count: number,
  seed: number,
  drop: FakeOpenAIFaultRule = { kind: "drop", deltas: 1 },
) {
  const random = seededRandom(seed);
  const rateLimited: number[] = [];
  const failed: number[] = [];
  const dropped: number[] = [];
  for (let index = 0; index < count; index++) {
    const roll = random();
    if (roll < FAULT_MIX.rateLimit) rateLimited.push(index);
    else if (roll < FAULT_MIX.rateLimit + FAULT_MIX.serverError) failed.push(index);
    else if (roll < FAULT_MIX.rateLimit + FAULT_MIX.serverError + FAULT_MIX.drop) dropped.push(index);
  }
  const rules: FakeOpenAIFaultRule[] = [
    { kind: "rate-limit", retryAfter: 7, requests: rateLimited },
    {
      kind: "status",
      status: 500,
      message: "The server had an error while processing your request.",
      requests: failed,
    },
    { ...drop, requests: dropped } as FakeOpenAIFaultRule,
  ];
  return { rules, rateLimited, failed, dropped };
}

/** Nodes with unique, easily found texts: `node-007 alpha bravo …`. */
export function markedNodes(count: number, words = 12): NodeWithScore[] {
  const vocabulary = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
  ];
  return Array.from({ length: count }, (_, index) => {
    const body = Array.from(
      { length: words },
      (_, word) => vocabulary[(index + word) % vocabulary.length],
    ).join(" ");
    return {
      node: new TextNode({ id: `n${index}`, text: `node-${String(index).padStart(3, "0")} ${body}.` }),
      score: 1,
    };
  });
}

/** The messages a chat request carried. */
export function messagesOf(request: FakeOpenAIRequest): ChatMessage[] {
  const body = request.body as { messages?: ChatMessage[]; prompt?: string } | undefined;
  if (body?.messages) return body.messages;
  return body?.prompt === undefined ? [] : [{ role: "user", content: body.prompt }];
}

/** All the text a request carried. */
export function promptTextOf(request: FakeOpenAIRequest): string {
  return messagesOf(request)
    .map((message) => message.content)
    .join("\n");
}

/** Requests that were answered normally (no injected fault, not closed by the client). */
export function answered(requests: readonly FakeOpenAIRequest[]): FakeOpenAIRequest[] {
  return requests.filter((request) => request.fault === undefined && !request.closedByClient);
}

/** Counts the occurrences of `needle` in `haystack` (non-overlapping). */
export function occurrences(haystack: string, needle: string): number {
  if (needle === "") return 0;
  return haystack.split(needle).length - 1;
}

export { rejectionOf, thrownBy } from "../../src/util/thrown-by.test.util.js";

/** Polls `condition` every few ms until it holds, failing after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 5000, what = "condition"): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Fills `{name}` slots of a template with a replacer function (an oracle independent of the library's formatter). */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * The value of `slot` in `text`, a rendering of `template` with `values` filled in; undefined when `text`
 * is not such a rendering (its fixed text differs).
 */
export function extractSlot(
  text: string,
  template: string,
  slot: string,
  values: Readonly<Record<string, string>>,
): string | undefined {
  const parts = template.split(`{${slot}}`);
  if (parts.length !== 2) throw new Error(`template must contain {${slot}} exactly once`);
  const prefix = fillTemplate(parts[0] as string, values);
  const suffix = fillTemplate(parts[1] as string, values);
  if (text.length < prefix.length + suffix.length || !text.startsWith(prefix) || !text.endsWith(suffix))
    return undefined;
  return text.slice(prefix.length, text.length - suffix.length);
}

/**
 * Asserts that `pieces` (in any order) tile `whole`: consumed left to right, each next stretch of `whole`
 * (after whitespace) is exactly one of the pieces, and every piece is used once. This is "no text lost,
 * none duplicated, none altered" (the packer only drops whitespace at its cuts).
 */
export function expectTiling(
  whole: string,
  pieces: readonly string[],
): Array<{ start: number; end: number }> {
  const placed: Array<{ start: number; end: number }> = [];
  const left = [...pieces];
  let position = 0;
  const skipSpace = () => {
    while (position < whole.length && /\s/.test(whole[position] as string)) position += 1;
  };
  skipSpace();
  while (position < whole.length) {
    // The longest piece that starts here (a shorter one could be a prefix of the right one).
    let best = -1;
    for (const [index, piece] of left.entries()) {
      if (
        piece !== "" &&
        whole.startsWith(piece, position) &&
        (best === -1 || piece.length > (left[best] as string).length)
      )
        best = index;
    }
    if (best === -1) {
      expect.fail(
        `text lost or altered at offset ${position}: ${JSON.stringify(whole.slice(position, position + 80))}`,
      );
    }
    placed.push({ start: position, end: position + (left[best] as string).length });
    position += (left[best] as string).length;
    left.splice(best, 1);
    skipSpace();
  }
  expect(left, "pieces that are not part of the input, or duplicated").toEqual([]);
  return placed;
}

/**
 * Where each text sits in `joinChunks(texts)` (trimmed, blanks dropped, joined with a blank line), so a node's
 * span can be checked against the pieces that carried it.
 */
export function spansOfJoined(texts: readonly string[]): Array<{ start: number; end: number } | undefined> {
  let offset = 0;
  let first = true;
  return texts.map((text) => {
    const trimmed = text.trim();
    if (trimmed === "") return undefined;
    if (!first) offset += 2;
    first = false;
    const span = { start: offset, end: offset + trimmed.length };
    offset = span.end;
    return span;
  });
}

/** A node with the given text. */
export const textNode = (text: string, id?: string): NodeWithScore => ({
  node: new TextNode({ text, ...(id ? { id } : {}) }),
  score: 1,
});

/** A completion MockLLM answering "answer" in a 4096-token window. */
export const mockLLM = (options: ConstructorParameters<typeof MockLLM>[0] = {}) =>
  new MockLLM({ response: "answer", contextWindow: 4096, ...options });

/** The modes that call the model. */
export const LLM_MODES = RESPONSE_MODES.filter((mode) => mode !== "no_text" && mode !== "context_only");
/** The modes that send the nodes' text to the model. */
export const CONTEXT_MODES = LLM_MODES.filter((mode) => mode !== "generation");

/** Asserts a typed ragsynth error with `code` whose message matches every pattern (what was expected, how to fix). */
export function expectTyped(
  error: unknown,
  code: Parameters<typeof RagsynthError.isInstance>[1],
  ...patterns: RegExp[]
) {
  expect(
    RagsynthError.isInstance(error, code),
    `expected a RagsynthError ${code}, got ${String(error)}`,
  ).toBe(true);
  for (const pattern of patterns) expect((error as Error).message).toMatch(pattern);
}
