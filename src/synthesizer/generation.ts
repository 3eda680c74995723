import type { ZodType } from "zod";
import { parseObject, toResponseFormat } from "../prompt/predict.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import { createSynthesizer, type SynthesizerSettings } from "./create-synthesizer.js";
import type { ResponseSynthesizer } from "./types.js";

export interface GenerationModeOptions<T> {
  settings: SynthesizerSettings;
  simpleTemplate: BasePromptTemplate;
  outputSchema: ZodType<T> | undefined;
}

/**
 * `generation`: answers the query alone (`{query_str}`), ignoring the nodes, in one call. Like
 * LlamaIndex there is no empty-nodes shortcut; the nodes are still returned as sources. A query whose prompt
 * plus `numOutput` is over the window throws `ContextOverflowError` before the call.
 */
export function createGenerationSynthesizer<T>(options: GenerationModeOptions<T>): ResponseSynthesizer<T> {
  const schema = options.outputSchema;
  return createSynthesizer<T>({
    ...options.settings,
    mode: "generation",
    prompts: { simple_template: options.simpleTemplate },
    emptyNodes: "run",
    imageNodes: "text",
    run: async (context) => {
      const responseFormat = schema ? await toResponseFormat(schema) : undefined;
      const template = context.prompts.simple_template as BasePromptTemplate;
      const helper = context.promptHelper;
      // Before the call, as compact does: the query prompt plus numOutput must fit the window.
      const { total, parts } = helper.countPrompt(
        template,
        context.budget({
          variables: { query_str: context.query },
          ...(responseFormat ? { responseFormat } : {}),
        }),
      );
      helper.getAvailableContextSize(total, parts);
      const { text } = await context.stream(
        template,
        { query_str: context.query },
        { step: { kind: "generation" }, responseFormat },
      );
      if (schema) return { text, object: parseObject(text, schema) };
      return text === "" ? context.emptyResponse : text;
    },
  });
}
