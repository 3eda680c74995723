import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { optionsOf } from "../errors/check-options.js";
import { sleep } from "../util/abort.js";
import {
  completionBody,
  echoResponder,
  type FakeOpenAIResponder,
  fakeEmbedding,
  normalizeReply,
  promptOf,
  seededRandom,
  streamEvent,
} from "./fake-openai-replies.js";

/** A failure the fake server can inject. */
export type FakeOpenAIFault =
  /** 429 with `Retry-After` (seconds or an HTTP date) and/or `retry-after-ms`. */
  | { kind: "rate-limit"; retryAfter?: number | string; retryAfterMs?: number }
  /** Any status with an OpenAI-style error body (500, 401, 400 `context_length_exceeded` …). */
  | { kind: "status"; status: number; message?: string; code?: string; headers?: Record<string, string> }
  /** Waits before the first byte, then answers normally. */
  | { kind: "slow-first-byte"; delayMs: number }
  /** Destroys the socket after `deltas` stream deltas (non-streaming: before the body completes). */
  | { kind: "drop"; deltas: number }
  /** Answers 200 with a body (or SSE event data) that is not JSON. */
  | { kind: "malformed-json"; body?: string }
  /** Streams a delta every `intervalMs` and never finishes. @default intervalMs 50 */
  | { kind: "never-ending"; intervalMs?: number }
  /**
   * Answers with exactly this status, content type and body, streamed or not: an HTML page, JSON without
   * `choices`, SSE whose events are not completion chunks. @default status 200
   */
  | { kind: "raw"; status?: number; contentType: string; body: string };

/**
 * When a fault applies: on the listed request indexes, with a probability (seeded RNG), on some paths; all
 * given conditions must hold, and a rule with none applies to every request.
 */
export type FakeOpenAIFaultRule = FakeOpenAIFault & {
  /** Zero-based request indexes, counted over every request the server received. */
  requests?: number[];
  /** Chance per request, drawn from the server's seeded RNG. */
  probability?: number;
  /** Limit to paths (`/v1/embeddings`). */
  paths?: string[];
};

/** One request as the server saw it. The `authorization` header is never recorded. */
export interface FakeOpenAIRequest {
  index: number;
  method: string;
  path: string;
  /** The query string after `?`, without the `?` (empty when there is none): `api-version=2024-10-21`. */
  query: string;
  body: unknown;
  headers: Record<string, string>;
  startedAt: number;
  /** True when the client closed the connection before the answer was complete. */
  closedByClient: boolean;
  /** When the connection or response closed. */
  closedAt?: number;
  /** The fault applied to this request, if any. */
  fault?: FakeOpenAIFault["kind"];
  /**
   * The prompt as the model would see it: chat messages as `role: content` lines, or the completion prompt.
   * Set for chat and completion requests once the body is read: the server's prompt log.
   */
  prompt?: string;
}

/** Options of {@link startFakeOpenAIServer}. */
export interface FakeOpenAIServerOptions {
  /** Answers chat and completion requests. @default echoes the last user message */
  handler?: FakeOpenAIResponder;
  /** Faults to inject; the first matching rule wins. */
  faults?: FakeOpenAIFaultRule[];
  /** Seed of the RNG behind `probability` rules. @default 1 */
  seed?: number;
  /** Turns a text into its embedding. @default {@link fakeEmbedding} with 8 dimensions */
  embed?: (text: string) => number[];
  /** Delay before every answer, in milliseconds (to make concurrency observable). @default 0 */
  latencyMs?: number;
  /**
   * Accept at most this many chat and completion requests at once, like a server with a concurrency limit:
   * one more gets a 429 at once (no `Retry-After`), counted in `stats.rejected`. @default unlimited
   */
  maxConcurrent?: number;
}

/** A running fake server. */
export interface FakeOpenAIServer {
  /** `http://127.0.0.1:PORT/v1`: pass it as `baseURL`. */
  url: string;
  /** Every request, in arrival order. */
  requests: FakeOpenAIRequest[];
  /**
   * Requests being answered right now and the most at once so far; with `maxConcurrent`, the requests turned
   * away with a 429 and the most accepted at once.
   */
  stats: { inFlight: number; maxInFlight: number; rejected: number; maxAccepted: number };
  /** Resolves when request `index` has closed (or rejects after `timeoutMs`). */
  waitForClose(index: number, timeoutMs?: number): Promise<FakeOpenAIRequest>;
  /** Stops listening and destroys every open socket. */
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    return { _unparsable: text };
  }
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

function sendFault(response: ServerResponse, fault: FakeOpenAIFault): boolean {
  if (fault.kind === "rate-limit") {
    const headers: Record<string, string> = {};
    if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
    if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
    const error = {
      message: "Rate limit reached. Slow down.",
      type: "requests",
      code: "rate_limit_exceeded",
    };
    sendJson(response, 429, { error }, headers);
    return true;
  }
  if (fault.kind === "status") {
    const error = {
      message: fault.message ?? `Fake failure ${fault.status}`,
      type: "fake",
      code: fault.code ?? null,
    };
    sendJson(response, fault.status, { error }, fault.headers);
    return true;
  }
  return false;
}

/**
 * Starts an OpenAI-compatible HTTP server on 127.0.0.1 (random port) for tests: `/v1/chat/completions`
 * and `/v1/completions` (JSON or SSE with `[DONE]` and the include_usage chunk), `/v1/embeddings`
 * (deterministic vectors) and `/v1/models`. Faults are scriptable per request or by seeded probability,
 * and each request records whether the client closed the connection early.
 *
 * @example
 * const server = await startFakeOpenAIServer({ faults: [{ kind: "rate-limit", retryAfter: 2, requests: [0] }] });
 * const llm = new OpenAILike({ model: "fake", baseURL: server.url });
 * await server.close();
 */
export async function startFakeOpenAIServer(given: FakeOpenAIServerOptions = {}): Promise<FakeOpenAIServer> {
  const options = optionsOf("options", given, "{ handler?, faults?, embed?, latencyMs?, … }");
  const {
    handler = echoResponder,
    faults = [],
    embed = (text: string) => fakeEmbedding(text),
    latencyMs = 0,
    maxConcurrent = Number.POSITIVE_INFINITY,
  } = options;
  const random = seededRandom(options.seed ?? 1);
  const requests: FakeOpenAIRequest[] = [];
  const stats = { inFlight: 0, maxInFlight: 0, rejected: 0, maxAccepted: 0 };
  let accepted = 0;
  const sockets = new Set<Socket>();
  const closeWaiters = new Map<number, Array<() => void>>();

  const pickFault = (index: number, path: string): FakeOpenAIFault | undefined =>
    faults.find((rule) => {
      if (rule.paths && !rule.paths.includes(path)) return false;
      if (rule.requests && !rule.requests.includes(index)) return false;
      return rule.probability === undefined || random() < rule.probability;
    });

  async function answer(request: IncomingMessage, response: ServerResponse, record: FakeOpenAIRequest) {
    const body = await readBody(request);
    record.body = body;
    if (record.path === "/v1/chat/completions" || record.path === "/v1/completions") {
      const { messages, prompt } = promptOf(record.index, record.path, body);
      record.prompt =
        messages.length > 0
          ? messages.map((message) => `${message.role}: ${message.content}`).join("\n")
          : prompt;
    }
    const limited = record.path === "/v1/chat/completions" || record.path === "/v1/completions";
    if (limited && accepted >= maxConcurrent) {
      stats.rejected++;
      record.fault = "rate-limit";
      return sendFault(response, { kind: "rate-limit" });
    }
    if (limited) {
      accepted++;
      stats.maxAccepted = Math.max(stats.maxAccepted, accepted);
      response.on("close", () => accepted--);
    }
    const fault = pickFault(record.index, record.path);
    if (fault) record.fault = fault.kind;
    if (latencyMs > 0) await sleep(latencyMs);
    if (fault?.kind === "slow-first-byte") await sleep(fault.delayMs);
    if (record.closedByClient || response.destroyed) return;
    if (fault && sendFault(response, fault)) return;
    if (record.path === "/v1/models")
      return sendJson(response, 200, { object: "list", data: [{ id: "fake", object: "model" }] });
    if (record.path === "/v1/embeddings") {
      const input = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? "")];
      const data = input.map((text, index) => ({ object: "embedding", index, embedding: embed(text) }));
      if (body.encoding_format === "base64") {
        for (const item of data) {
          (item as { embedding: unknown }).embedding = Buffer.from(
            new Float32Array(item.embedding).buffer,
          ).toString("base64");
        }
      }
      return sendJson(response, 200, {
        object: "list",
        data,
        model: body.model,
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    }
    if (record.path !== "/v1/chat/completions" && record.path !== "/v1/completions") {
      return sendJson(response, 404, {
        error: { message: `Unknown path ${record.path}`, type: "invalid_request_error" },
      });
    }
    const prompt = promptOf(record.index, record.path, body);
    const reply = normalizeReply(await handler(prompt), prompt);
    if (fault?.kind === "raw") {
      response.writeHead(fault.status ?? 200, { "content-type": fault.contentType });
      return response.end(fault.body);
    }
    if (fault?.kind === "malformed-json") {
      response.writeHead(200, { "content-type": body.stream ? "text/event-stream" : "application/json" });
      const text = fault.body ?? (body.stream ? "{not json" : '{"id": "fake-1", "choices": [');
      return response.end(body.stream ? `data: ${text}\n\n` : text);
    }
    if (!body.stream) {
      if (fault?.kind === "drop") {
        response.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
        response.write('{"id": "fake-1", ');
        return void response.socket?.destroy();
      }
      return sendJson(response, 200, completionBody(record.path, body.model, reply));
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.flushHeaders();
    // Resolves once the chunk reached the socket, so a later drop cannot swallow it.
    const send = (text: string) =>
      new Promise<void>((resolve) =>
        response.destroyed ? resolve() : response.write(text, () => resolve()),
      );
    if (fault?.kind === "never-ending") {
      while (!response.destroyed) {
        await send(streamEvent(record.path, body.model, { delta: "more " }));
        await sleep(fault.intervalMs ?? 50);
      }
      return;
    }
    for (const [i, delta] of reply.deltas.entries()) {
      if (fault?.kind === "drop" && i >= fault.deltas) return void response.socket?.destroy();
      await send(streamEvent(record.path, body.model, { delta }));
    }
    if (fault?.kind === "drop") return void response.socket?.destroy();
    await send(streamEvent(record.path, body.model, { finishReason: reply.finishReason }));
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage;
    if (includeUsage && reply.usage) await send(streamEvent(record.path, body.model, { usage: reply.usage }));
    await send("data: [DONE]\n\n");
    response.end();
  }

  const server = createServer((request, response) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (name !== "authorization" && value !== undefined) headers[name] = String(value);
    }
    const [path = "/", ...queryParts] = (request.url ?? "/").split("?");
    const record: FakeOpenAIRequest = {
      index: requests.length,
      method: request.method ?? "GET",
      path,
      query: queryParts.join("?"),
      body: undefined,
      headers,
      startedAt: Date.now(),
      closedByClient: false,
    };
    requests.push(record);
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    response.on("close", () => {
      stats.inFlight--;
      record.closedByClient = !response.writableFinished && record.fault !== "drop";
      record.closedAt = Date.now();
      for (const resolve of closeWaiters.get(record.index) ?? []) resolve();
    });
    answer(request, response, record).catch(() => response.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    stats,
    waitForClose(index, timeoutMs = 1000) {
      const record = requests[index];
      if (record?.closedAt !== undefined) return Promise.resolve(record);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`Request ${index} did not close within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const waiters = closeWaiters.get(index) ?? [];
        waiters.push(() => {
          clearTimeout(timer);
          resolve(requests[index] as FakeOpenAIRequest);
        });
        closeWaiters.set(index, waiters);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
