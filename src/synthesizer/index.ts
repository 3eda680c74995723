export { type GetResponseSynthesizerOptions, getResponseSynthesizer } from "./get-response-synthesizer.js";
export {
  RESPONSE_MODES,
  type ResponseMode,
  type ResponseSynthesizer,
  type StreamingSynthesisResponse,
  type SynthesisResponse,
  type SynthesizeOptions,
} from "./types.js";
