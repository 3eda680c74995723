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
        ...attributes,
      },
    },
    parent,
  );
}

/** The response attributes: usage tokens and, when the server said, the finish reason. */
export function genAiResponseAttributes({
  inputTokens,
  outputTokens,
  finishReason,
}: {
  inputTokens: number;
  outputTokens: number;
  finishReason?: string | undefined;
}): Attributes {
  return {
    "gen_ai.usage.input_tokens": inputTokens,
    "gen_ai.usage.output_tokens": outputTokens,
    ...(finishReason ? { "gen_ai.response.finish_reasons": [finishReason] } : {}),
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
