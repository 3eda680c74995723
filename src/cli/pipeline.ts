import { PromptHelper } from "../budget/index.js";
import type { Embedder } from "../embedding/types.js";
import type { RagsynthEvent } from "../events/events.js";
import type { LLMMetadata } from "../llm/types.js";
import { SentenceEmbeddingOptimizer } from "../postprocessor/sentence-embedding-optimizer.js";
import { SimilarityPostprocessor } from "../postprocessor/similarity-postprocessor.js";
import type { NodePostprocessor } from "../postprocessor/types.js";
import { attachesImages, type ImageReport, imageStep } from "./image-step.js";
import type { CommandContext } from "./io.js";
import { type OpenedIndex, openIndex } from "./load-index.js";
import {
  chooseEmbedder,
  chooseLLM,
  type EmbedChoice,
  extractiveOnlyNotice,
  type LLMChoice,
  OFFLINE_NOTICE,
} from "./models.js";
import type { QueryOptions } from "./parse-command.js";
import type { Progress } from "./progress.js";
import { reportReadCounts } from "./read-report.js";
import { UsageError } from "./usage-error.js";

/**
 * The budget for a model, by the library's one output-reserve policy (`reserveOutput`): `--num-output`, else
 * LlamaIndex's 256, capped by the model's maxOutputTokens (never its 16k maximum, which would crowd out context).
 */
export function createPromptHelper(metadata: LLMMetadata, numOutput: number | undefined): PromptHelper {
  return PromptHelper.fromLLMMetadata(metadata, { numOutput });
}

/** `--similarity-cutoff`, then `--optimizer`, in that order (cheap filter first). */
export function buildPostprocessors(
  options: Pick<QueryOptions, "similarityCutoff" | "optimizer">,
  embedModel: Embedder,
): NodePostprocessor[] {
  const postprocessors: NodePostprocessor[] = [];
  if (options.similarityCutoff !== undefined) {
    postprocessors.push(new SimilarityPostprocessor({ similarityCutoff: options.similarityCutoff }));
  }
  if (options.optimizer) {
    // A node with no passing sentence keeps its best one rather than failing the query; the trace shows it.
    postprocessors.push(
      new SentenceEmbeddingOptimizer({
        embedModel,
        ...options.optimizer,
        onEmpty: "keep_best",
      }),
    );
  }
  return postprocessors;
}

/** Notes the model made about itself: an assumed context window always, others (tokenizer) with `--verbose`. */
export function assumptionLines(metadata: LLMMetadata, verbose: boolean): string[] {
  return (metadata.assumptions ?? [])
    .filter((assumption) => verbose || /contextWindow/.test(assumption))
    .map((assumption) =>
      `ragsynth: note: ${assumption.replace(/pass contextWindow/g, "pass --context-window")}.`.replace(
        /\.\.$/,
        ".",
      ),
    );
}

/** The models a query uses, as chosen by flags and environment. */
export interface ModelChoices {
  llmChoice: LLMChoice;
  embedChoice: EmbedChoice;
  /** The LLM's metadata, known without building a client. */
  metadata: LLMMetadata;
}

/**
 * Reads `--llm`/`--embed` (or the environment), prints the offline notice when no model is configured and
 * any assumption the model made (an unknown model's context window).
 * @throws UsageError for a spec that cannot be read
 */
export function chooseModels(options: QueryOptions, io: CommandContext["io"]): ModelChoices {
  const llmChoice = chooseLLM(options.llm, {
    contextWindow: options.contextWindow,
    env: io.env,
    vision: options.vision,
    timeoutMs: options.timeoutMs,
    numOutput: options.numOutput,
  });
  const embedChoice = chooseEmbedder(options.embed, io.env, options.timeoutMs);
  if (llmChoice.defaulted) {
    io.stderr.write(
      `${embedChoice.label === "hashing" ? OFFLINE_NOTICE : extractiveOnlyNotice(embedChoice.label)}\n`,
    );
  }
  const metadata = llmChoice.metadata();
  // Checked before any document is read, and in the CLI's own words.
  if (options.numOutput !== undefined && options.numOutput >= metadata.contextWindow) {
    throw new UsageError(
      `Expected --num-output to be less than the context window (${metadata.contextWindow}${options.contextWindow === undefined ? `, ${metadata.model}'s` : ", from --context-window"}), got ${options.numOutput}.`,
      "The window holds the prompt and the answer together: lower --num-output or raise --context-window.",
    );
  }
  const outputLimit = metadata.maxOutputTokens;
  if (options.numOutput !== undefined && outputLimit !== undefined && options.numOutput > outputLimit) {
    io.stderr.write(
      `ragsynth: --num-output ${options.numOutput} is above ${metadata.model}'s output limit (${outputLimit} tokens); reserving ${outputLimit}.\n`,
    );
  }
  for (const line of assumptionLines(metadata, options.verbose)) io.stderr.write(`${line}\n`);
  return { llmChoice, embedChoice, metadata };
}

/** Opens (or builds) the index, reports skipped files, and builds the postprocessors. */
export async function openRetrieval(
  options: QueryOptions,
  { embedChoice, metadata }: ModelChoices,
  { io, signal }: CommandContext,
  progress: Progress,
): Promise<{ opened: OpenedIndex; postprocessors: NodePostprocessor[]; images: ImageReport | undefined }> {
  const opened = await openIndex({ ...options, embed: embedChoice, io, signal, progress });
  progress.clear();
  reportReadCounts(opened.stats, io, { verbose: options.verbose, always: false });
  const postprocessors = buildPostprocessors(options, opened.embedModel);
  // Images pass one checked door, and only when some node is or references one (no postprocessor, and no trace
  // line, for text-only corpora). Local files go to a model's server only with --vision: a visible choice.
  let images: ImageReport | undefined;
  if (opened.index.hasImages()) {
    const step = imageStep({
      attach: attachesImages(options.vision, metadata),
      paths: options.paths,
      cwd: io.cwd,
    });
    postprocessors.push(step.postprocessor);
    images = step.report;
  }
  return { opened, postprocessors, images };
}

/**
 * Waits for the index write {@link openRetrieval} left running (the index is written while the question is
 * answered: after an edit to one file of a 30 MB corpus the write takes longer than the answer), with a progress
 * line while it lasts. A failed write fails the command, as it did before the answer was printed.
 */
export async function indexSaved(opened: OpenedIndex, progress: Progress): Promise<void> {
  if (opened.saveError !== undefined) throw opened.saveError;
  const { saved } = opened.index;
  // No progress line for a write that is already done (or none was started).
  const done = await Promise.race([
    saved.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
  if (done) {
    await saved;
    return;
  }
  progress.start("Saving the index");
  try {
    await saved;
  } finally {
    progress.clear();
  }
}

/** Shows the current step of a query on the progress line, from the events. */
export function progressFromEvents(progress: Progress): (event: RagsynthEvent) => void {
  let calls = 0;
  return (event) => {
    switch (event.type) {
      case "retrieve-start":
        progress.start("Retrieving");
        break;
      case "postprocess-end":
        progress.start(`${event.name}: ${event.tokensBefore} → ${event.tokensAfter} tokens`);
        break;
      case "synthesize-start":
        progress.start(`Synthesizing (${event.mode})`);
        break;
      case "llm-call-start": {
        calls += 1;
        const where =
          event.step.kind === "tree" ? ` · tree level ${event.step.level}` : ` · ${event.step.kind}`;
        progress.update(calls, `LLM call ${calls}${where} · ${event.promptTokens} prompt tokens`);
        break;
      }
      default:
        break;
    }
  };
}
