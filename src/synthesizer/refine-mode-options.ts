import type { ZodType } from "zod";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import type { SynthesizerSettings } from "./create-synthesizer.js";

/** What `refine` and `compact` are built from: the mode, the settings, the prompts and the answer options. */
export interface RefineModeOptions<T> {
  mode: "refine" | "compact";
  settings: SynthesizerSettings;
  textQaTemplate: BasePromptTemplate;
  refineTemplate: BasePromptTemplate;
  /** The multimodal QA and refine prompts (nodes with images). */
  chatContentQaTemplate: BasePromptTemplate;
  chatContentRefineTemplate: BasePromptTemplate;
  structuredAnswerFiltering: boolean;
  outputSchema: ZodType<T> | undefined;
}
