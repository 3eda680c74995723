import type { Attributes, Context, Tracer } from "@opentelemetry/api";
import { scrubSecrets } from "../errors/scrub-secrets.js";
import { type ActiveSpan, startSpan } from "./start-span.js";

/** The environment variable of the OpenTelemetry GenAI conventions that turns on prompt and answer capture. */
export const CAPTURE_MESSAGE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/** True when the environment opts in to recording prompt and answer text (`…_CAPTURE_MESSAGE_CONTENT=true`). */
export function captureContentFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  return env[CAPTURE_MESSAGE_CONTENT_ENV]?.trim().toLowerCase() === "true";
}

/** What one model call is, in the GenAI conventions' terms. */
export interface GenAiRequest {
  /** `chat` for chat models, `text_completion` for completion models. */
  operation: "chat" | "text_completion";
  /** `gen_ai.provider.name`: `openai`, `anthropic`, …; `unknown` when the model does not say. */
  provider: string;
  model: string;
  maxTokens: number;
  /** `gen_ai.output.type`: `json` when a schema constrains the answer, else `text`. */
  outputType: "text" | "json";
  /** `server.address` / `server.port`, when the model says where it is served. */
  server?: { address: string; port: number } | undefined;
}

/**
 * Starts an inference span as the OpenTelemetry GenAI conventions describe it: named
 * `{gen_ai.operation.name} {gen_ai.request.model}`, kind CLIENT, with the request attributes.
 */
export function startGenAiSpan(
  tracer: Tracer,
  request: GenAiRequest,
  attributes: Attributes,
  parent?: Context,
): ActiveSpan {
  return startSpan(
    tracer,
    `${request.operation} ${request.model}`,
    {
      kind: "client",
      attributes: {
        "gen_ai.operation.name": request.operation,
        "gen_ai.provider.name": request.provider,
        "gen_ai.request.model": request.model,
        "gen_ai.request.max_tokens": request.maxTokens,
        "gen_ai.output.type": request.outputType,
        ...(request.server
          ? { "server.address": request.server.address, "server.port": request.server.port }
          : {}),
        // OpenInference (Arize Phoenix) reads its own names: the span kind and the model.
        "openinference.span.kind": "LLM",
        "llm.model_name": request.model,
        ...attributes,
      },
    },
    parent,
  );
}

/**
 * The response attributes: usage tokens and, when the server said, the finish reason, the completion's id and
 * the model that answered; the token counts also under OpenInference's names (`llm.token_count.*`).
 */
export function genAiResponseAttributes({
  inputTokens,
  outputTokens,
  finishReason,
  responseId,
  responseModel,
}: {
  inputTokens: number;
  outputTokens: number;
  finishReason?: string | undefined;
  responseId?: string | undefined;
  responseModel?: string | undefined;
}): Attributes {
  return {
    "gen_ai.usage.input_tokens": inputTokens,
    "gen_ai.usage.output_tokens": outputTokens,
    ...(finishReason ? { "gen_ai.response.finish_reasons": [finishReason] } : {}),
    ...(responseId ? { "gen_ai.response.id": responseId } : {}),
    ...(responseModel ? { "gen_ai.response.model": responseModel } : {}),
    "llm.token_count.prompt": inputTokens,
    "llm.token_count.completion": outputTokens,
    "llm.token_count.total": inputTokens + outputTokens,
  };
}

/** A prompt as sent: chat messages, or one text for completion models. */
export type GenAiInput =
  | { kind: "chat"; messages: ReadonlyArray<{ role: string; content: unknown }> }
  | { kind: "completion"; text: string };

function textOf(content: unknown): string {
  return scrubSecrets(typeof content === "string" ? content : JSON.stringify(content));
}

/** `gen_ai.input.messages` (the conventions' JSON message schema), every text scrubbed of secrets. Opt-in only. */
export function inputMessagesAttribute(input: GenAiInput): Attributes {
  const messages = input.kind === "chat" ? input.messages : [{ role: "user", content: input.text } as const];
  const value = messages.map(({ role, content }) => ({
    role,
    parts: [{ type: "text", content: textOf(content) }],
  }));
  return { "gen_ai.input.messages": JSON.stringify(value) };
}

/** `gen_ai.output.messages`: the answer, scrubbed of secrets. Opt-in only. */
export function outputMessagesAttribute(text: string, finishReason?: string): Attributes {
  const message = {
    role: "assistant",
    parts: [{ type: "text", content: textOf(text) }],
    finish_reason: finishReason ?? "stop",
  };
  return { "gen_ai.output.messages": JSON.stringify([message]) };
}

/**
 * A root span's question and answer (`input.value`, `output.value`: OpenInference's names, which Phoenix shows
 * and Langfuse takes as the trace's input and output), scrubbed of secrets. Opt-in only, like the messages.
 */
export function rootContentAttributes(content: { query?: string; answer?: string }): Attributes {
  return {
    ...(content.query === undefined
      ? {}
      : { "input.value": scrubSecrets(content.query), "input.mime_type": "text/plain" }),
    ...(content.answer === undefined
      ? {}
      : { "output.value": scrubSecrets(content.answer), "output.mime_type": "text/plain" }),
  };
}

/**
 * Starts an embeddings span as the GenAI conventions describe it: `embeddings text-embedding-3-small`, kind
 * CLIENT, with the request attributes (and OpenInference's `EMBEDDING` kind). Inputs are never recorded.
 */
export function startEmbeddingSpan(
  tracer: Tracer,
  request: {
    provider: string;
    model: string;
    inputs: number;
    server?: { address: string; port: number } | undefined;
  },
): ActiveSpan {
  return startSpan(tracer, `embeddings ${request.model}`, {
    kind: "client",
    attributes: {
      "gen_ai.operation.name": "embeddings",
      "gen_ai.provider.name": request.provider,
      "gen_ai.request.model": request.model,
      ...(request.server
        ? { "server.address": request.server.address, "server.port": request.server.port }
        : {}),
      "ragsynth.embedding.inputs": request.inputs,
      "openinference.span.kind": "EMBEDDING",
      "embedding.model_name": request.model,
    },
  });
}
