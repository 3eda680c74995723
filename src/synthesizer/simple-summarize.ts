import type { ZodType } from "zod";
import type { PromptHelper } from "../budget/index.js";
import { parseObject, toResponseFormat } from "../prompt/predict.js";
import type { BasePromptTemplate } from "../prompt/prompt-template.js";
import {
  createSynthesizer,
  type SynthesizerRunResult,
  type SynthesizerSettings,
} from "./create-synthesizer.js";
import type { SynthesizerContext } from "./synthesizer-context.js";
import type { ResponseSynthesizer } from "./types.js";

export interface SimpleSummarizeModeOptions<T> {
  settings: SynthesizerSettings;
  textQaTemplate: BasePromptTemplate;
  outputSchema: ZodType<T> | undefined;
}

/**
 * `simple_summarize`: one call over every chunk, each truncated to its share of the context so the
 * prompt fits; the chunks are joined with `"\n"`. Truncation is this mode's documented behaviour and is
 * reported (`truncatedTokens` on the `pack` event). Differs from LlamaIndex: every node keeps a share
 * (LlamaIndex truncates the joined text, dropping later nodes whole), short chunks give their unused share
 * to long ones, the context is plain text (not a list repr), and `outputSchema` is honoured.
 */
export function createSimpleSummarizeSynthesizer<T>(
  options: SimpleSummarizeModeOptions<T>,
): ResponseSynthesizer<T> {
  return createSynthesizer<T>({
    ...options.settings,
    mode: "simple_summarize",
    prompts: { text_qa_template: options.textQaTemplate },
    run: (context) => runSimpleSummarize(context, options.outputSchema),
  });
}

/** Water-filling: each chunk gets what it needs, up to an equal split of what the others leave. */
function shares(sizes: readonly number[], total: number): number[] {
  const order = sizes.map((size, index) => ({ size, index })).sort((a, b) => a.size - b.size);
  const result = new Array<number>(sizes.length).fill(0);
  let remaining = total;
  for (const [rank, { size, index }] of order.entries()) {
    const fair = Math.floor(remaining / (order.length - rank));
    result[index] = Math.min(size, fair);
    remaining -= result[index] as number;
  }
  return result;
}

function truncateChunks(helper: PromptHelper, chunks: readonly string[], share: number) {
  const trimmed = chunks.map((chunk) => chunk.trim()).filter((chunk) => chunk !== "");
  const sizes = trimmed.map((chunk) => helper.tokenizer.count(chunk));
  const allowed = shares(sizes, share * trimmed.length);
  let truncatedTokens = 0;
  const pieces = trimmed.map((chunk, index) => {
    const size = sizes[index] as number;
    const limit = allowed[index] as number;
    if (size <= limit) return chunk;
    const piece = helper.createPacker([chunk]).next(limit) ?? "";
    truncatedTokens += size - helper.tokenizer.count(piece);
    return piece;
  });
  return { pieces, truncatedTokens };
}

async function runSimpleSummarize<T>(
  context: SynthesizerContext,
  schema: ZodType<T> | undefined,
): Promise<SynthesizerRunResult<T>> {
  const helper = context.promptHelper;
  const template = context.prompts.text_qa_template as BasePromptTemplate;
  const responseFormat = schema ? await toResponseFormat(schema) : undefined;
  const numChunks = Math.max(1, context.chunks.filter((chunk) => chunk.trim() !== "").length);
  const share = helper.getAvailableChunkSize(
    template,
    context.budget({
      variables: { query_str: context.query },
      numChunks,
      ...(responseFormat ? { responseFormat } : {}),
    }),
  );
  const { pieces, truncatedTokens } = truncateChunks(helper, context.chunks, share);
  context.emit({
    type: "pack",
    mode: context.mode,
    round: 0,
    chunkTokens: pieces.map((piece) => helper.tokenizer.count(piece)),
    availableChunkSize: share,
    ...(truncatedTokens > 0 ? { truncatedTokens } : {}),
  });
  const contextText = pieces.join("\n");
  const { text } = await context.stream(
    template,
    { query_str: context.query, context_str: contextText },
    { step: { kind: "simple_summarize" }, context: contextText, responseFormat },
  );
  if (schema) return { text, object: parseObject(text, schema) };
  return { text: text === "" ? context.emptyResponse : text };
}
