export { DEFAULT_ACCUMULATE_SEPARATOR } from "./accumulate.js";
export {
  type CreateSynthesizerOptions,
  createSynthesizer,
  type SynthesizerRunResult,
  type SynthesizerSettings,
} from "./create-synthesizer.js";
export { type GetResponseSynthesizerOptions, getResponseSynthesizer } from "./get-response-synthesizer.js";
export type {
  SynthesizerCallOptions,
  SynthesizerCallResult,
  SynthesizerContext,
} from "./synthesizer-context.js";
export {
  RESPONSE_MODES,
  type ResponseMode,
  type ResponseSynthesizer,
  type StreamingSynthesisResponse,
  type SynthesisResponse,
  type SynthesizeOptions,
} from "./types.js";
