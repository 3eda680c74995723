import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

// What ragsynth hands the AI SDK's `generateText`/`streamText` on each call, and the check of the settings a user
// adds to it. `fromAiSdk` builds the calls.

/** Usage as the AI SDK reports it (v5 `inputTokens`/`outputTokens`, v4 `promptTokens`/`completionTokens`). */
export interface AiSdkUsage {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  promptTokens?: number | undefined;
  completionTokens?: number | undefined;
}

/** A user message's content part as the AI SDK takes it: text, or an image (bytes, or a URL). */
export type AiSdkUserPart =
  | { type: "text"; text: string }
  | {
      type: "image";
      image: Uint8Array | URL | string;
      mediaType?: string;
      providerOptions?: { openai: { imageDetail: "low" | "high" | "auto" } };
    };

/** A chat message as the AI SDK takes it in `messages` (system text never goes here: see {@link AiSdkCallArguments}). */
export type AiSdkMessage =
  | { role: "user"; content: string | AiSdkUserPart[] }
  | { role: "assistant"; content: string };

/**
 * The arguments ragsynth passes to `generateText` / `streamText`: `prompt` or `messages`, never both, as the AI
 * SDK's own `Prompt` type requires. System text goes in `instructions` (ai@7) and/or `system` (ai@6), never in
 * `messages`: ai@6 warns about system messages there and ai@7 rejects them (`AI_InvalidPromptError`).
 */
export type AiSdkCallArguments<Model> = {
  model: Model;
  /** System text for ai@7 (and later). */
  instructions?: string;
  /** System text for ai@6 (ai@7 reads it as a deprecated alias of `instructions`). */
  system?: string;
  maxOutputTokens?: number;
  temperature?: number;
  abortSignal?: AbortSignal;
  /** Always 0: ragsynth's retry policy does the retrying. */
  maxRetries: number;
  /** streamText only: the AI SDK reports stream errors here instead of throwing. */
  onError?: (event: { error: unknown }) => void;
} & ({ prompt: string; messages?: never } | { messages: AiSdkMessage[]; prompt?: never });

/**
 * What a call receives besides {@link AiSdkCallArguments}: the user's {@link AiSdkCallSettings} and, when
 * {@link FromAiSdkOptions.output} is given and the call asks for a schema, `output` (`Output.object(…)`). Not in the
 * static type, which stays assignable to `generateText`'s parameters under `exactOptionalPropertyTypes`.
 */
export type AiSdkCallExtras = AiSdkCallSettings & { output?: unknown };

/**
 * AI SDK call settings passed through to every `generateText`/`streamText` call: `providerOptions`, `headers`,
 * `experimental_telemetry`, `topP`, `seed`, … Whatever ragsynth sets itself (the model, the prompt, the system
 * text, `maxOutputTokens`, `abortSignal`, `maxRetries`, `onError`, `output`) cannot be set here.
 */
export type AiSdkCallSettings = {
  providerOptions?: Record<string, Record<string, unknown>> | undefined;
  headers?: Record<string, string | undefined> | undefined;
  experimental_telemetry?: Record<string, unknown> | undefined;
  [setting: string]: unknown;
};

/** The keys ragsynth sets on each call itself. */
const MANAGED_SETTINGS = [
  "model",
  "prompt",
  "messages",
  "system",
  "instructions",
  "maxOutputTokens",
  "abortSignal",
  "maxRetries",
  "onError",
  "output",
  "experimental_output",
] as const;

/** What {@link FromAiSdkOptions.output} takes: the `Output` and `jsonSchema` exports of `ai`. */
export interface AiSdkStructuredOutput {
  Output: { object(options: { schema: unknown; name?: string }): unknown };
  jsonSchema(schema: Record<string, unknown>): unknown;
}

/** The two AI SDK functions ragsynth needs, passed in so ragsynth never imports `ai`. */
export interface AiSdkFunctions<Model> {
  generateText: (args: AiSdkCallArguments<Model>) => PromiseLike<{ text: string; usage?: AiSdkUsage }>;
  streamText: (args: AiSdkCallArguments<Model>) => {
    textStream: AsyncIterable<string>;
    usage?: PromiseLike<AiSdkUsage | undefined>;
  };
}

/** Where system text goes: ai@7's `instructions`, ai@6's `system`, or both (each major reads its own). */
export type AiSdkSystemField = "instructions" | "system" | "both";

/** Refuses call settings that are not an object, or that set what ragsynth sets on each call itself. */
export function checkCallSettings(settings: AiSdkCallSettings | undefined): void {
  if (settings === undefined) return;
  if (typeof settings !== "object" || settings === null || Array.isArray(settings)) {
    throw new InvalidArgumentError({
      parameter: "callSettings",
      value: settings,
      expected: "be an object of AI SDK call settings such as { providerOptions, headers }",
    });
  }
  const managed = MANAGED_SETTINGS.filter((key) => key in settings);
  if (managed.length > 0) {
    throw new InvalidArgumentError({
      parameter: "callSettings",
      value: managed.join(", "),
      expected: `leave out what ragsynth sets on each call (${MANAGED_SETTINGS.join(", ")})`,
      hint: "Pass the model as fromAiSdk's first argument, maxOutputTokens as the synthesizer's numOutput, and output as fromAiSdk's output option.",
    });
  }
}
