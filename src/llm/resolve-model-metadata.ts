import { checkInteger } from "../errors/check-integer.js";
import { tokenizerNameForModel } from "../tokenizer/resolve-tokenizer.js";
import { lookupModelLimits, type ModelLimitsTable } from "./model-context-windows.js";
import { openAIImageRuleName } from "./openai-image-rules.js";
import { DEFAULT_CONTEXT_WINDOW, type ImageTokenRule, type LLMMetadata } from "./types.js";

/** OpenAI's models that take images (gpt-4o, gpt-4.1, gpt-4-turbo, gpt-5, o1/o3/o4). */
const OPENAI_VISION = /^(gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-5|o[134])/;

/** What a user can say about a model's limits and images, with any provider (`OpenAILike`, `fromAiSdk`). */
export interface ModelMetadataOptions {
  /** Total tokens the model accepts. @default from `modelLimits` or the built-in table, else 3900 (stated in `metadata.assumptions`) */
  contextWindow?: number | undefined;
  /** The most tokens one answer may have; larger `maxTokens` fail before the request. @default from the table; never more than the window */
  maxOutputTokens?: number | undefined;
  /** Your own limits table, consulted before the built-in one. */
  modelLimits?: ModelLimitsTable | undefined;
  /**
   * The model takes images: `pixels` sends them as image parts (`OpenAILike`: `image_url` content parts, data
   * URLs for bytes and files, URLs as given, `detail` passed through; `fromAiSdk`: AI SDK image parts), `captions`
   * sends their alt text. @default "pixels" for OpenAI's vision models served by OpenAI (gpt-4o, gpt-4.1, gpt-5,
   * o1/o3/o4), otherwise unset (images are an error)
   */
  imageInput?: "pixels" | "captions" | undefined;
  /** What an image costs in prompt tokens. @default OpenAI's rule (stated in `metadata.assumptions` off OpenAI) */
  imageTokens?: ImageTokenRule | undefined;
}

/** What {@link resolveModelMetadata} needs besides the user's options: the model and who serves it. */
export interface ModelMetadataSource extends ModelMetadataOptions {
  /** The model id, for the table lookup and the tokenizer. */
  model: string;
  /**
   * True when OpenAI itself serves the model: its tokenizer and image-token rule are then exact; anywhere else
   * they are approximations, said in `assumptions`.
   */
  servedByOpenAI: boolean;
  /**
   * A server that runs models with a smaller window than the table's (Ollama's `num_ctx`): applied only to a
   * window from the table, never to one the caller passed.
   */
  serverWindowCap?: { tokens: number; reason: string } | undefined;
}

/** The metadata fields every provider resolves the same way. */
export type ResolvedModelMetadata = Pick<
  LLMMetadata,
  "model" | "contextWindow" | "maxOutputTokens" | "tokenizer" | "imageInput" | "imageTokens" | "assumptions"
>;

/**
 * The one rule for a model's limits, tokenizer and image settings, whichever provider serves it: the window
 * and output limit from the options, else the table, else 3900 (stated in `assumptions`); the output limit at
 * most the window; the tokenizer by model name, an approximation (stated) unless OpenAI serves a GPT model;
 * images as pixels for OpenAI's vision models on OpenAI; OpenAI's image rule, an assumption (stated) off OpenAI. Providers add only what is theirs (`isChatModel`,
 * `structuredOutput`, `provider`).
 * @throws InvalidArgumentError for a `contextWindow` or `maxOutputTokens` that is not a positive integer
 */
export function resolveModelMetadata(options: ModelMetadataSource): ResolvedModelMetadata {
  const { model, servedByOpenAI, serverWindowCap } = options;
  if (options.contextWindow !== undefined) checkInteger("contextWindow", options.contextWindow, 1);
  if (options.maxOutputTokens !== undefined) checkInteger("maxOutputTokens", options.maxOutputTokens, 1);
  const limits = lookupModelLimits(model, options.modelLimits);
  const assumptions: string[] = [];
  let contextWindow = options.contextWindow ?? limits?.contextWindow;
  if (contextWindow === undefined) {
    contextWindow = DEFAULT_CONTEXT_WINDOW;
    assumptions.push(
      `contextWindow ${DEFAULT_CONTEXT_WINDOW} assumed for unknown model ${model}; pass contextWindow`,
    );
  } else if (
    options.contextWindow === undefined &&
    serverWindowCap &&
    contextWindow > serverWindowCap.tokens
  ) {
    assumptions.push(
      `contextWindow ${serverWindowCap.tokens} used instead of ${model}'s ${contextWindow}: ${serverWindowCap.reason}`,
    );
    contextWindow = serverWindowCap.tokens;
  }
  const tokenizer = tokenizerNameForModel(model);
  if (!servedByOpenAI && !limits?.matched.startsWith("gpt")) {
    assumptions.push(`tokenizer ${tokenizer} approximates ${model}'s own tokenizer`);
  }
  const metadata: ResolvedModelMetadata = { model, contextWindow, tokenizer };
  const { imageTokens } = options;
  const imageInput =
    options.imageInput ?? (servedByOpenAI && OPENAI_VISION.test(model) ? "pixels" : undefined);
  if (imageInput !== undefined) metadata.imageInput = imageInput;
  if (imageTokens !== undefined) metadata.imageTokens = imageTokens;
  else if (imageInput !== undefined) {
    // A model of OpenAI's table is counted by its own rule wherever it is served (Azure, a proxy); OpenAI's
    // server with a model the table lacks gets the costliest rule (so no prompt goes over); elsewhere the GPT-4o
    // rule stays an assumption, as the costliest would make one image overflow a local model's small window.
    const known = openAIImageRuleName(model);
    if (known !== undefined || servedByOpenAI) metadata.imageTokens = { kind: "openai", model };
    else {
      assumptions.push(
        `image tokens of ${model} counted by OpenAI's rule; pass imageTokens if the server counts otherwise`,
      );
    }
  }
  const maxOutputTokens = options.maxOutputTokens ?? limits?.maxOutputTokens;
  if (maxOutputTokens !== undefined) metadata.maxOutputTokens = Math.min(maxOutputTokens, contextWindow);
  if (assumptions.length > 0) metadata.assumptions = assumptions;
  return metadata;
}
