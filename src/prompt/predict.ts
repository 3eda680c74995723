import type { ZodType } from "zod";
import { checkMethod, optionsOf } from "../errors/check-options.js";
import { NoObjectGeneratedError } from "../errors/no-object-generated-error.js";
import { checkModel } from "../llm/check-model.js";
import type { JsonSchemaFormat, LLM, LLMCallOptions, LLMUsage } from "../llm/types.js";
import { blocksToText } from "../schema/content-block.js";
import type { ConcurrencyLimiter, LimiterLease } from "../util/concurrency-limiter.js";
import { checkPrompt } from "./check-prompt.js";
import type { BasePromptTemplate, TemplateVariables } from "./prompt-template.js";
import { type PromptContent, type RenderedPrompt, renderPrompt } from "./render-prompt.js";

export interface PredictOptions {
  llm: LLM;
  prompt: BasePromptTemplate;
  variables?: TemplateVariables;
  /** Prepended to every call (a system message for chat models). */
  systemPrompt?: string | undefined;
  /** The most tokens to generate. Synthesizers always pass the budget's `numOutput`. */
  maxTokens?: number | undefined;
  signal?: AbortSignal | undefined;
  responseFormat?: JsonSchemaFormat | undefined;
  onUsage?: ((usage: LLMUsage) => void) | undefined;
  /** Text and image blocks for one template variable (a multimodal prompt). */
  content?: PromptContent | undefined;
  /** Holds a slot of this limiter for the call (and gives it up while the call waits to retry). */
  limiter?: ConcurrencyLimiter | undefined;
  /**
   * The prompt as {@link preparePrompt} already rendered it from these same options: sent as is, not rendered
   * again (the instrumented call renders once, counts that, and sends that).
   */
  rendered?: RenderedPrompt | undefined;
}

export interface PredictResult {
  text: string;
  usage: LLMUsage | undefined;
  /** What the model received. */
  rendered: RenderedPrompt;
}

function callOptions(options: PredictOptions): LLMCallOptions {
  const { prompt, llm, variables = {} } = options;
  const template = prompt.kind === "selector" ? prompt.select(llm) : prompt;
  const templateVariables: Record<string, string> = { ...template.partials };
  for (const [key, value] of Object.entries(variables)) templateVariables[key] = String(value);
  if (options.content) templateVariables[options.content.variable] = blocksToText(options.content.blocks);
  const call: LLMCallOptions = { templateVariables, promptType: template.promptType };
  if (options.maxTokens !== undefined) call.maxTokens = options.maxTokens;
  if (options.signal) call.signal = options.signal;
  if (options.responseFormat) call.responseFormat = options.responseFormat;
  if (options.onUsage) call.onUsage = options.onUsage;
  return call;
}

function withLease(call: LLMCallOptions, lease: LimiterLease | undefined): LLMCallOptions {
  return lease ? { ...call, onRetry: (event) => lease.onRetry(event) } : call;
}

/** Renders the prompt for this model (chat or completion form, system prompt, schema) without calling it. */
export function preparePrompt(
  options: Omit<PredictOptions, "maxTokens" | "signal" | "onUsage">,
): RenderedPrompt {
  return render(checkedPredictOptions(options));
}

// The prompt rendered from options already checked (predict and streamPredict check them once, then render).
function render(options: Omit<PredictOptions, "maxTokens" | "signal" | "onUsage">): RenderedPrompt {
  return renderPrompt({
    prompt: options.prompt,
    variables: options.variables ?? {},
    llm: options.llm,
    systemPrompt: options.systemPrompt,
    responseFormat: options.responseFormat,
    content: options.content,
  });
}

/**
 * Formats a template for the model and calls it once: the single path every synthesizer uses.
 * @throws MissingTemplateVariableError before any call when a variable has no value
 */
export async function predict(given: PredictOptions): Promise<PredictResult> {
  const options = checkedPredictOptions(given);
  options.signal?.throwIfAborted();
  const rendered = options.rendered ?? render(options);
  const lease = await options.limiter?.acquire(options.signal);
  const call = withLease(callOptions(options), lease);
  try {
    const result =
      rendered.kind === "chat"
        ? await options.llm.chat(rendered.messages, call)
        : await options.llm.complete(rendered.text, call);
    lease?.release({});
    return { text: result.text, usage: result.usage, rendered };
  } catch (error) {
    lease?.release({ error });
    throw error;
  }
}

/** Like {@link predict}, streaming the answer's text deltas. Rendering errors throw at once. */
export function streamPredict(options: PredictOptions): {
  rendered: RenderedPrompt;
  textStream: AsyncIterable<string>;
} {
  checkedPredictOptions(options);
  options.signal?.throwIfAborted();
  const rendered = options.rendered ?? render(options);
  const open = (call: LLMCallOptions) =>
    rendered.kind === "chat"
      ? options.llm.streamChat(rendered.messages, call)
      : options.llm.streamComplete(rendered.text, call);
  const { limiter } = options;
  const call = callOptions(options);
  return { rendered, textStream: limiter ? limitedStream(limiter, call, open) : open(call) };
}

/** The stream opened once a slot is free; the slot is held until the stream ends, fails or is closed. */
async function* limitedStream(
  limiter: ConcurrencyLimiter,
  call: LLMCallOptions,
  open: (call: LLMCallOptions) => AsyncIterable<string>,
): AsyncGenerator<string> {
  const lease = await limiter.acquire(call.signal);
  let error: unknown;
  try {
    yield* open(withLease(call, lease));
  } catch (caught) {
    error = caught;
    throw caught;
  } finally {
    lease.release(error === undefined ? {} : { error });
  }
}

/** Converts a zod schema to the JSON Schema sent to the model. zod is loaded only when used. */
export async function toResponseFormat(schema: ZodType, name = "Output"): Promise<JsonSchemaFormat> {
  const { toJSONSchema } = await import("zod");
  const { $schema: _ignored, ...jsonSchema } = toJSONSchema(schema) as Record<string, unknown>;
  return { name, schema: jsonSchema };
}

/** Pulls the JSON object out of an answer that may be wrapped in a code fence or prose. */
export function extractJson(text: string): string {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced?.[1]) return fenced[1].trim();
  const start = text.search(/[[{]/);
  if (start === -1) return text.trim();
  const open = text[start];
  const end = text.lastIndexOf(open === "{" ? "}" : "]");
  return end > start ? text.slice(start, end + 1) : text.slice(start);
}

/**
 * Parses and validates a structured answer.
 * @throws NoObjectGeneratedError with the raw text and the zod issues
 */
export function parseObject<T>(text: string, schema: ZodType<T>, schemaName?: string): T {
  let value: unknown;
  try {
    value = JSON.parse(extractJson(text));
  } catch (cause) {
    throw new NoObjectGeneratedError({ text, cause, ...(schemaName ? { schemaName } : {}) });
  }
  let parsed = schema.safeParse(value);
  // OpenAI's strict mode answers null for an optional property it had to list as required: null means absent.
  if (!parsed.success) {
    const withoutNulls = dropNullProperties(value);
    if (withoutNulls !== value) {
      const retried = schema.safeParse(withoutNulls);
      if (retried.success) parsed = retried;
    }
  }
  if (!parsed.success) {
    throw new NoObjectGeneratedError({
      text,
      issues: parsed.error.issues,
      cause: parsed.error,
      ...(schemaName ? { schemaName } : {}),
    });
  }
  return parsed.data;
}

/** The value with every `null` object property removed (deeply); the same value when there is none. */
function dropNullProperties(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(dropNullProperties);
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (typeof value !== "object" || value === null) return value;
  let changed = false;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null) {
      changed = true;
      continue;
    }
    const next = dropNullProperties(item);
    if (next !== item) changed = true;
    result[key] = next;
  }
  return changed ? result : value;
}

/** Calls the model for a typed object: the schema goes natively or as instructions, and the answer is validated. */
export async function predictObject<T>(
  options: Omit<PredictOptions, "responseFormat"> & { schema: ZodType<T>; schemaName?: string },
): Promise<PredictResult & { object: T }> {
  checkedPredictOptions(options);
  checkMethod(
    "schema",
    options.schema,
    "safeParse",
    "be a zod schema",
    'import { z } from "zod" and pass schema: z.object({ … }).',
  );
  const responseFormat = await toResponseFormat(options.schema, options.schemaName);
  const result = await predict({ ...options, responseFormat });
  return { ...result, object: parseObject(result.text, options.schema, options.schemaName) };
}

/** The options of a model call, checked for plain JavaScript callers: an object with a model and a template. */
function checkedPredictOptions<Options extends { llm: LLM; prompt: BasePromptTemplate }>(
  given: Options,
): Options {
  const options = optionsOf("options", given, "{ llm, prompt, variables?, … }");
  checkModel("llm", options.llm);
  checkPrompt("prompt", options.prompt);
  return options;
}
