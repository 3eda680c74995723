import { PromptHelper } from "../budget/index.js";
import type { RagsynthEvent } from "../events/events.js";
import { type OpenedFolderIndex, openFolderIndex } from "../index-store/folder-index.js";
import type { FolderIndexOptions } from "../index-store/folder-read-options.js";
import type { LLM, LLMMetadata } from "../llm/types.js";
import { type IndexQuery, indexQuery } from "../question-run/index-query.js";
import type { RetryEvent } from "../util/retry.js";
import type { QueryCommandOptions } from "./command-options.js";
import { noteIndexBuild } from "./index-updates.js";
import { type CliIO, type CommandContext, colorEnabled, createStyle, type Style } from "./io.js";
import {
  chooseEmbedder,
  chooseLLM,
  type EmbedChoice,
  extractiveOnlyNotice,
  type LLMChoice,
  OFFLINE_NOTICE,
} from "./models.js";
import { attachesImages } from "./notes.js";
import { folderIndexOptions } from "./open-index.js";
import { createProgress, type Progress } from "./progress.js";
import { reportReadCounts } from "./read-report.js";
import { refuseOutputOverInput } from "./refuse-output-over-input.js";
import { UsageError } from "./usage-error.js";

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
  /** The LLM's metadata: the built model's, or (for `plan`) known without building a client. */
  metadata: LLMMetadata;
}

/** How a command that calls the model has it built: once, here, with a listener for its retries. */
export interface BuildLLM {
  onRetry?: ((event: RetryEvent) => void) | undefined;
}

/**
 * Reads `--llm`/`--embed` (or the environment), prints the offline notice when no model is configured and
 * any assumption the model made (an unknown model's context window). With `build`, the model is built once here
 * (a missing API key fails at once, before any document is read) and its metadata is the one checked.
 * @throws UsageError for a spec that cannot be read
 */
export function chooseModels(
  options: QueryCommandOptions,
  io: CommandContext["io"],
  build: BuildLLM,
): ModelChoices & { llm: LLM };
export function chooseModels(options: QueryCommandOptions, io: CommandContext["io"]): ModelChoices;
export function chooseModels(
  options: QueryCommandOptions,
  io: CommandContext["io"],
  build?: BuildLLM,
): ModelChoices & { llm?: LLM } {
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
  const llm = build ? llmChoice.create(build.onRetry ? { onRetry: build.onRetry } : {}) : undefined;
  const metadata = llm ? llm.metadata : llmChoice.metadata();
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
  return { llmChoice, embedChoice, metadata, ...(llm ? { llm } : {}) };
}

/**
 * Opens (or builds) the index, reports skipped files, sets up retrieval as the flags ask (`indexQuery`), and the
 * model's budget by the library's one output-reserve policy (`PromptHelper.fromLLMMetadata`): `--num-output`, else
 * LlamaIndex's 256, capped by the model's maxOutputTokens (never its 16k maximum, which would crowd out context).
 */
export async function openRetrieval(
  options: QueryCommandOptions,
  { embedChoice, metadata }: ModelChoices,
  { io, signal }: CommandContext,
  progress: Progress,
  // eval measures the whole index: it waits for another process's build rather than build the same files beside it.
  { whileAnotherBuilds = "wait" }: Pick<FolderIndexOptions, "whileAnotherBuilds"> = {},
): Promise<{ opened: OpenedFolderIndex; query: IndexQuery; promptHelper: PromptHelper }> {
  const opened = await openFolderIndex({
    ...(await folderIndexOptions({ ...options, embed: embedChoice }, { io, signal }, progress)),
    whileAnotherBuilds,
  });
  progress.clear();
  noteIndexBuild(opened.stats);
  reportReadCounts(opened.stats, io, { verbose: options.verbose, always: false });
  // A PostgreSQL store without pgvector: dense search works, but reads every vector (said once, not hidden).
  if (opened.index.storeNotice && options.retrieval !== "lexical")
    io.stderr.write(`ragsynth: note: ${opened.index.storeNotice}\n`);
  // Local files go to a model's server only with --vision: a visible choice.
  const images = {
    attach: attachesImages(options.vision, metadata),
    paths: options.paths,
    cwd: io.cwd,
    baseDir: opened.namesFrom,
  };
  const promptHelper = PromptHelper.fromLLMMetadata(metadata, { numOutput: options.numOutput });
  return { opened, query: indexQuery(opened.index, { ...options, images }), promptHelper };
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

/**
 * What `ask`, `plan` and `eval` do around their work: refuse a `--report` that would land on a document or the
 * questions file (before anything is read), give the work a progress line and the output's style, and clear the
 * progress line however the work ends.
 */
export async function queryCommand(
  options: QueryCommandOptions & { questions?: string },
  io: CliIO,
  work: (progress: Progress, style: Style) => Promise<number>,
): Promise<number> {
  await refuseOutputOverInput({
    outputs: [["--report", options.report]],
    inputs: [
      ...options.paths.map((path) => ["documents", path] as const),
      ["questions file", options.questions || undefined],
    ],
    cwd: io.cwd,
  });
  const progress = createProgress({ enabled: io.stderrIsTTY, sink: io.stderr, columns: io.columns });
  try {
    return await work(progress, createStyle(colorEnabled(io.stdoutIsTTY, io.env)));
  } finally {
    progress.clear();
  }
}
