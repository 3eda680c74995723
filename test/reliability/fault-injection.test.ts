import {
  getResponseSynthesizer,
  LLMError,
  RagsynthError,
  type RagsynthEvent,
  type ResponseMode,
  type SynthesisResponse,
} from "ragsynth";
import {
  CHAT_REFINE_PROMPT_TMPL,
  DEFAULT_TEXT_QA_PROMPT_TMPL,
  DEFAULT_TREE_SUMMARIZE_TMPL,
  joinChunks,
} from "ragsynth/extend";
import {
  type FakeOpenAIFaultRule,
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "ragsynth/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  answered,
  collectUnhandledRejections,
  expectTiling,
  extractSlot,
  FAULT_MIX,
  fakeLLM,
  markedNodes,
  messagesOf,
  rejectionOf,
  seededFaultPlan,
  spansOfJoined,
  until,
} from "./helpers.js";

collectUnhandledRejections();

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const QUERY = "What do the nodes say?";
/** A seed whose plan has every fault kind within the first 20 requests (429 at 7, 500 at 11, drop at 19, …). */
const FAULT_SEED = 10;
const NODE_COUNT = 200;
/** Each node is ~45 cl100k tokens; the window below leaves room for about two per leaf. */
const nodes = markedNodes(NODE_COUNT, 36);
const joined = joinChunks(nodes.map(({ node }) => node.text));
/** Answers are short and never contain node text, so a prompt with node text is a leaf (or a first answer). */
const summarize = ({ index }: { index: number }) => `summary-${index}.`;

/** The context each answered request carried, read out of the exact template the mode uses (chat forms). */
function contextOf(mode: ResponseMode, request: FakeOpenAIRequest): string | undefined {
  const user = messagesOf(request).at(-1)?.content ?? "";
  if (mode === "tree_summarize")
    return extractSlot(user, DEFAULT_TREE_SUMMARIZE_TMPL, "context_str", { query_str: QUERY });
  const qa = extractSlot(user, DEFAULT_TEXT_QA_PROMPT_TMPL, "context_str", { query_str: QUERY });
  if (qa !== undefined || mode !== "compact") return qa;
  const existing = /\nOriginal Answer: ([\s\S]*)\nNew Answer: $/.exec(user)?.[1] ?? "";
  return extractSlot(user, CHAT_REFINE_PROMPT_TMPL, "context_msg", {
    query_str: QUERY,
    existing_answer: existing,
  });
}

async function runWithFaults(
  mode: ResponseMode,
  options: { stream?: boolean; drop?: FakeOpenAIFaultRule } = {},
) {
  const plan = seededFaultPlan(2000, FAULT_SEED, options.drop);
  server = await startFakeOpenAIServer({ handler: summarize, faults: plan.rules });
  // 300-token window, 32 output tokens: the chat tree prompt's fixed part is ~150 tokens, leaving ~110 for context.
  const { llm, delays } = fakeLLM(server.url, { contextWindow: 300, maxOutputTokens: 32 });
  const events: RagsynthEvent[] = [];
  const synthesizer = getResponseSynthesizer({
    responseMode: mode,
    llm,
    concurrency: 8,
    onEvent: (event) => events.push(event),
  });
  let response: SynthesisResponse;
  if (options.stream) {
    const streaming = synthesizer.stream({ query: QUERY, nodes });
    let streamed = "";
    for await (const delta of streaming.textStream) streamed += delta;
    response = await streaming.response;
    expect(streamed).toBe(response.response);
  } else {
    response = await synthesizer.synthesize({ query: QUERY, nodes });
  }
  console.info(
    `[reliability] ${mode}${options.stream ? " (streaming)" : ""}: ${server.requests.length} requests, ` +
      `${response.usage.retries} retried (${["rate-limit", "status", "drop"].map((kind) => `${kind} ${server?.requests.filter((request) => request.fault === kind).length}`).join(", ")})`,
  );
  return { server, response, delays, events, plan };
}

function expectFaultsRecovered({ server, response, delays }: Awaited<ReturnType<typeof runWithFaults>>) {
  const faulted = server.requests.filter((request) => request.fault !== undefined);
  const kinds = new Set(faulted.map((request) => request.fault));
  // The mix really happened: every kind of fault, at roughly the planned rates.
  expect(kinds).toEqual(new Set(["rate-limit", "status", "drop"]));
  expect(faulted.length / server.requests.length).toBeGreaterThan(
    (FAULT_MIX.rateLimit + FAULT_MIX.serverError + FAULT_MIX.drop) / 3,
  );
  // Each fault cost exactly one retry, and usage reports them all.
  expect(response.usage.retries).toBe(faulted.length);
  expect(response.usage.llmCalls).toBe(answered(server.requests).length);
  expect(response.usage.llmCalls + response.usage.retries).toBe(server.requests.length);
  // 429s waited the server's Retry-After (7 s, asked of the sleep seam, which does not really wait); the others backed off.
  const rateLimits = faulted.filter((request) => request.fault === "rate-limit").length;
  expect(delays.filter((ms) => ms === 7000).length).toBe(rateLimits);
  expect(delays.length).toBe(faulted.length);
  // Nothing was left open or abandoned by the client.
  expect(server.stats.inFlight).toBe(0);
  expect(server.requests.filter((request) => request.closedByClient)).toEqual([]);
}

describe("fault injection: 10% 429 (Retry-After), 5% 500, 2% dropped mid-answer, over real HTTP", () => {
  it("tree_summarize over 200 nodes completes, every node reaches a leaf prompt, retries show in usage", async () => {
    const run = await runWithFaults("tree_summarize");
    expectFaultsRecovered(run);
    const leaves = answered(run.server.requests)
      .map((request) => contextOf("tree_summarize", request))
      .filter((context): context is string => context !== undefined && !context.includes("summary-"));
    expect(leaves.length).toBeGreaterThan(50);
    const placed = expectTiling(joined, leaves);
    // Every node's text reached a leaf prompt: whole in one, or (cut by the packer) across consecutive leaves.
    const spans = spansOfJoined(nodes.map(({ node }) => node.text));
    for (const [index, span] of spans.entries()) {
      const carriers = placed.filter((piece) => span && piece.start < span.end && piece.end > span.start);
      expect(carriers.length, `node ${index} reached no leaf`).toBeGreaterThan(0);
      expect(carriers[0]?.start, `node ${index} starts before its first leaf`).toBeLessThanOrEqual(
        span?.start as number,
      );
      expect(carriers.at(-1)?.end, `node ${index} ends after its last leaf`).toBeGreaterThanOrEqual(
        span?.end as number,
      );
    }
    // The answer is the root's summary, and the tree had more than two levels.
    expect(run.response.response).toMatch(/^summary-\d+\.$/);
    const rounds = run.events.filter((event) => event.type === "pack").length;
    expect(rounds).toBeGreaterThanOrEqual(3);
  });

  it("accumulate over 200 nodes completes with one answer per node, in order", async () => {
    const run = await runWithFaults("accumulate");
    expectFaultsRecovered(run);
    const pieces = answered(run.server.requests)
      .map((request) => contextOf("accumulate", request))
      .filter((context): context is string => context !== undefined);
    expect(pieces.length).toBe(NODE_COUNT);
    expectTiling(joined, pieces);
    const labels = run.response.response.match(/Response \d+: summary-\d+\./g) ?? [];
    expect(labels.map((label) => Number(/Response (\d+)/.exec(label)?.[1]))).toEqual(
      Array.from({ length: NODE_COUNT }, (_, index) => index + 1),
    );
  });

  it("compact over 200 nodes completes, and the refine steps see every node's text once, in order", async () => {
    const run = await runWithFaults("compact");
    expectFaultsRecovered(run);
    const pieces = answered(run.server.requests).map((request) => contextOf("compact", request));
    expect(pieces.every((piece) => piece !== undefined)).toBe(true);
    expectTiling(joined, pieces as string[]);
    // Refine steps are sequential, so request order is reading order.
    const starts = (pieces as string[]).map((piece) => joined.indexOf(piece));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(run.response.response).toMatch(/^summary-\d+\.$/);
  });

  it("streaming accumulate (every call streams) recovers from streams dropped before their first delta", async () => {
    const run = await runWithFaults("accumulate", { stream: true, drop: { kind: "drop", deltas: 0 } });
    expectFaultsRecovered(run);
    expect(
      run.server.requests.every((request) => (request.body as { stream?: boolean }).stream === true),
    ).toBe(true);
    expect(run.response.response.match(/Response \d+: /g)?.length).toBe(NODE_COUNT);
  });

  it("a stream dropped after text was delivered fails with a typed, non-retried llm_stream_interrupted error", async () => {
    server = await startFakeOpenAIServer({
      handler: () => ({ deltas: ["partial ", "answer ", "that ", "breaks"] }),
      faults: [{ kind: "drop", deltas: 2 }],
    });
    const { llm } = fakeLLM(server.url, { contextWindow: 300, maxOutputTokens: 32 });
    const streaming = getResponseSynthesizer({ responseMode: "tree_summarize", llm }).stream({
      query: QUERY,
      nodes: nodes.slice(0, 1),
    });
    const received: string[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const delta of streaming.textStream) received.push(delta);
      })(),
    );
    expect(RagsynthError.isInstance(error, "llm_stream_interrupted")).toBe(true);
    expect((error as Error).message).toMatch(/broke after 2 text deltas.*Not retried/);
    expect(received.join("")).toBe("partial answer ");
    expect(server.requests).toHaveLength(1);
    await expect(streaming.response).rejects.toBe(error);
  });
});

describe("abort in the middle of tree_summarize", () => {
  it("closes all 8 in-flight requests before any is answered, starts no new one, and rejects with an AbortError", async () => {
    server = await startFakeOpenAIServer({ handler: summarize, latencyMs: 30_000 });
    const { llm } = fakeLLM(server.url, { contextWindow: 300, maxOutputTokens: 32 });
    const controller = new AbortController();
    const synthesizer = getResponseSynthesizer({ responseMode: "tree_summarize", llm, concurrency: 8 });
    const pending = synthesizer.synthesize({ query: QUERY, nodes, signal: controller.signal });
    const running = server;
    await until(() => running.stats.inFlight === 8, 5000, "8 requests in flight");
    const before = running.requests.length;
    expect(before).toBe(8);
    controller.abort();
    const error = await rejectionOf(pending);
    expect((error as Error).name).toBe("AbortError");
    const closed = await Promise.all(
      running.requests.slice(0, 8).map((request) => running.waitForClose(request.index, 1000)),
    );
    // Closed by the client while the server was still holding its answer back (30 s): the abort closed it.
    for (const request of closed) expect(request.closedByClient).toBe(true);
    // No request starts after the abort (give the pool time to misbehave).
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(running.requests).toHaveLength(before);
    expect(running.stats.inFlight).toBe(0);
  });

  it("aborting a streaming tree_summarize mid-stream closes the streamed request and ends textStream with an AbortError", async () => {
    server = await startFakeOpenAIServer({
      handler: summarize,
      faults: [{ kind: "never-ending", intervalMs: 10 }],
    });
    const { llm } = fakeLLM(server.url, { contextWindow: 4096 });
    const controller = new AbortController();
    const streaming = getResponseSynthesizer({ responseMode: "tree_summarize", llm }).stream({
      query: QUERY,
      nodes: nodes.slice(0, 3),
      signal: controller.signal,
    });
    let deltas = 0;
    const error = await rejectionOf(
      (async () => {
        for await (const _delta of streaming.textStream) if (++deltas === 3) controller.abort();
      })(),
    );
    expect((error as Error).name).toBe("AbortError");
    const request = await server.waitForClose(0, 1000);
    expect(request.closedByClient).toBe(true);
    await expect(streaming.response).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("persistent failure", () => {
  const persistent = (succeedFirst: number): FakeOpenAIFaultRule[] => [
    {
      kind: "status",
      status: 500,
      message: "The server is on fire",
      requests: Array.from({ length: 5000 }, (_, index) => index + succeedFirst),
    },
  ];

  it("every call 500: ONE typed retries_exhausted error after the configured retries, with the cause", {
    timeout: 10_000,
  }, async () => {
    server = await startFakeOpenAIServer({ handler: summarize, faults: persistent(0) });
    const { llm, delays } = fakeLLM(server.url, { contextWindow: 300, maxOutputTokens: 32, maxRetries: 2 });
    const events: RagsynthEvent[] = [];
    const synthesizer = getResponseSynthesizer({
      responseMode: "tree_summarize",
      llm,
      concurrency: 4,
      onEvent: (event) => events.push(event),
    });
    const error = await rejectionOf(synthesizer.synthesize({ query: QUERY, nodes }));
    expect(LLMError.isInstance(error, "retries_exhausted")).toBe(true);
    const failure = error as LLMError;
    expect(failure.attempts).toBe(3);
    expect(failure.status).toBe(500);
    expect(failure.message).toMatch(
      /Gave up after 3 attempts\. Last error: .*failed with 500: The server is on fire/,
    );
    expect(LLMError.isInstance(failure.cause, "llm_server_error")).toBe(true);
    expect(failure.lastError).toBe(failure.cause);
    // The pool stopped: at most `concurrency` calls were tried, each maxRetries + 1 times.
    expect(server.requests.length).toBeLessThanOrEqual(4 * 3);
    expect(delays.length).toBeLessThanOrEqual(4 * 2);
    // One synthesize-end event, carrying that same error.
    const ends = events.filter((event) => event.type === "synthesize-end");
    expect(ends).toHaveLength(1);
    expect((ends[0] as { error?: unknown }).error).toBe(error);
  });

  it("the synthesize-end event reports how many calls succeeded before the failure", {
    timeout: 10_000,
  }, async () => {
    server = await startFakeOpenAIServer({ handler: summarize, faults: persistent(20) });
    const { llm } = fakeLLM(server.url, { contextWindow: 300, maxOutputTokens: 32, maxRetries: 1 });
    const events: RagsynthEvent[] = [];
    const synthesizer = getResponseSynthesizer({
      responseMode: "compact",
      llm,
      onEvent: (event) => events.push(event),
    });
    await rejectionOf(synthesizer.synthesize({ query: QUERY, nodes }));
    const callEnds = events.filter((event) => event.type === "llm-call-end");
    expect(callEnds.filter((event) => event.error === undefined)).toHaveLength(20);
    expect(callEnds.filter((event) => event.error !== undefined)).toHaveLength(1);
  });

  // GAP (reported): the thrown error does not say how many calls succeeded before it, nor the usage spent.
  // Remove `.fails` once the synthesizer attaches it (e.g. `error.usage` / `error.callsSucceeded`).
  it("the thrown error carries how many calls succeeded (usage) before the failure", {
    timeout: 10_000,
  }, async () => {
    server = await startFakeOpenAIServer({ handler: summarize, faults: persistent(20) });
    const { llm } = fakeLLM(server.url, { contextWindow: 300, maxOutputTokens: 32, maxRetries: 1 });
    const synthesizer = getResponseSynthesizer({ responseMode: "compact", llm });
    const error = (await rejectionOf(synthesizer.synthesize({ query: QUERY, nodes }))) as Record<
      string,
      unknown
    >;
    const usage = (error.usage ?? (error.cause as Record<string, unknown> | undefined)?.usage) as
      | { llmCalls?: number }
      | undefined;
    const succeeded =
      error.callsSucceeded ?? (usage?.llmCalls === undefined ? undefined : usage.llmCalls - 1);
    expect(succeeded).toBe(20);
  });
});
