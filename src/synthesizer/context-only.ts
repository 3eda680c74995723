import { createSynthesizer, type SynthesizerSettings } from "./create-synthesizer.js";
import type { ResponseSynthesizer } from "./types.js";

/**
 * `no_text`: answers `""` and returns the sources, with no model call. Differs from LlamaIndex: the
 * response prints as `""`, not `"None"`, and no model is needed.
 */
export function createNoTextSynthesizer<T>(settings: SynthesizerSettings): ResponseSynthesizer<T> {
  return createSynthesizer<T>({ ...settings, mode: "no_text", imageNodes: "text", run: async () => "" });
}

/**
 * `context_only`: answers the chunks joined with `"\n\n"`, with no model call. Differs from LlamaIndex:
 * no model is needed (LlamaIndex falls back to `Settings.llm`).
 */
export function createContextOnlySynthesizer<T>(settings: SynthesizerSettings): ResponseSynthesizer<T> {
  return createSynthesizer<T>({
    ...settings,
    mode: "context_only",
    imageNodes: "text",
    run: async (context) => context.chunks.join("\n\n"),
  });
}
