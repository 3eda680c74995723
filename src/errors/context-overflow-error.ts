import { RagsynthError } from "./ragsynth-error.js";

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

  constructor({
    contextWindow,
    numOutput,
    promptTokens,
    parts,
    what = "The prompt",
    hint = "Raise contextWindow, lower numOutput, or shorten the query, template or system prompt.",
  }: {
    contextWindow: number;
    numOutput: number;
    promptTokens: number;
    parts?: PromptTokenParts;
    what?: string;
    hint?: string;
  }) {
    const overBy = promptTokens + numOutput - contextWindow;
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
    this.contextWindow = contextWindow;
    this.numOutput = numOutput;
    this.promptTokens = promptTokens;
    this.parts = parts;
    this.overBy = overBy;
  }
}
