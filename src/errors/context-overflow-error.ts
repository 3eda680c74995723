import { checkErrorFields } from "./check-error-fields.js";
import { hasErrorMarker, markError, RagsynthError } from "./ragsynth-error.js";

const marker = "ragsynth.error.ContextOverflowError";

/** How a prompt's tokens divide up, for budget errors and traces. */
export interface PromptTokenParts {
  /** The template with every value already filled in (partials, query, existing answer), context left empty. */
  template: number;
  /** The system prompt, if any. */
  systemPrompt: number;
  /** Per-message chat wrapping (roles and separators). */
  chatOverhead: number;
  /** Schema or tool text sent with the prompt. */
  schema: number;
}

/**
 * The prompt's fixed parts plus the reserved output do not fit the context window, so no context fits.
 * The message gives every number and what to change.
 */
export class ContextOverflowError extends RagsynthError {
  readonly contextWindow: number;
  readonly numOutput: number;
  readonly promptTokens: number;
  readonly parts: PromptTokenParts | undefined;
  /** Tokens still needed: how far over the window the request is. */
  readonly overBy: number;

  constructor(fields: {
    contextWindow: number;
    numOutput: number;
    promptTokens: number;
    parts?: PromptTokenParts;
    what?: string;
    hint?: string;
    /** How many more tokens the request needs; by default `promptTokens + numOutput − contextWindow`. */
    overBy?: number;
  }) {
    const {
      contextWindow,
      numOutput,
      promptTokens,
      parts,
      what = "The prompt",
      hint = "Raise contextWindow, lower numOutput, or shorten the query, template or system prompt.",
      overBy = promptTokens + numOutput - contextWindow,
    } = checkErrorFields(fields, "ContextOverflowError", {
      contextWindow: "number",
      numOutput: "number",
      promptTokens: "number",
    });
    const detail = parts
      ? ` (template ${parts.template}, system prompt ${parts.systemPrompt}, chat wrapping ${parts.chatOverhead}, schema ${parts.schema})`
      : "";
    super({
      code: "context_overflow",
      message:
        `${what} needs ${promptTokens} tokens${detail} plus numOutput ${numOutput}, ` +
        `but contextWindow is ${contextWindow}: available context would be ${contextWindow - promptTokens - numOutput}. ${hint}`,
    });
    this.name = "ContextOverflowError";
    markError(this, marker);
    this.contextWindow = contextWindow;
    this.numOutput = numOutput;
    this.promptTokens = promptTokens;
    this.parts = parts;
    this.overBy = overBy;
  }

  /**
   * A piece that cannot be cut (a character, an image) needs `tokens` but only `room` tokens are left beside its
   * prompt: `promptTokens` is then the whole request (`contextWindow − numOutput − room + tokens`) and `overBy`
   * is `tokens − room`. The one rule for every "does not fit" below the prompt level (packer, truncate, images).
   */
  static forPiece(fields: {
    /** The piece, as the message names it: `The character "漢" (2 tokens)`. */
    what: string;
    tokens: number;
    room: number;
    contextWindow: number;
    numOutput: number;
    hint: string;
  }): ContextOverflowError {
    const { what, tokens, room, contextWindow, numOutput, hint } = checkErrorFields(
      fields,
      "ContextOverflowError.forPiece",
      {
        what: "string",
        tokens: "number",
        room: "number",
        contextWindow: "number",
        numOutput: "number",
        hint: "string",
      },
    );
    return new ContextOverflowError({
      contextWindow,
      numOutput,
      promptTokens: contextWindow - numOutput - room + tokens,
      what: `${what} with its prompt`,
      hint: `Only ${room} token${room === 1 ? "" : "s"} of context fit beside the prompt. ${hint}`,
    });
  }

  /** True when `error` is a {@link ContextOverflowError} (also across duplicated copies of the package). */
  static override isInstance(error: unknown): error is ContextOverflowError {
    return hasErrorMarker(error, marker);
  }
}
