import type { ZodType } from "zod";
import type { BudgetOptions } from "../budget/budget-options.js";
import type { JsonSchemaFormat } from "../llm/types.js";
import { toResponseFormat } from "../prompt/predict.js";
import type { TemplateVariables } from "../prompt/prompt-template.js";
import type { SynthesizerContext } from "./synthesizer-context.js";

/**
 * How every mode starts: the schema's response format (if any), and the budget options for this model and
 * system prompt with that format and the values already known (`query_str`), so the budget counts what is sent.
 */
export async function modeBudget<T>(
  context: SynthesizerContext,
  schema: ZodType<T> | undefined,
  variables?: TemplateVariables,
): Promise<{ responseFormat: JsonSchemaFormat | undefined; budget: BudgetOptions }> {
  const responseFormat = schema ? await toResponseFormat(schema) : undefined;
  const budget = context.budget({
    ...(variables ? { variables } : {}),
    ...(responseFormat ? { responseFormat } : {}),
  });
  return { responseFormat, budget };
}

/** Reports one packing round of the run's mode: the `pack` event (and the synthesis span's `ragsynth.pack`). */
export function reportPack(
  context: SynthesizerContext,
  {
    round,
    chunkTokens,
    availableChunkSize,
    truncatedTokens = 0,
  }: { round: number; chunkTokens: number[]; availableChunkSize: number; truncatedTokens?: number },
): void {
  context.emit({
    type: "pack",
    mode: context.mode,
    round,
    chunkTokens,
    availableChunkSize,
    ...(truncatedTokens > 0 ? { truncatedTokens } : {}),
  });
}
