import {
  type BatchItem,
  type BatchProcessor,
  type BatchProcessorContext,
  type CallCacheStore,
  createQuestionProcessor,
  createQueueLLM,
  type JsonValue,
  type QueueLLM,
  withCallCache,
} from "../batch/index.js";
import type { QuestionEngine } from "../batch/question-processor.js";
import { PromptHelper } from "../budget/index.js";
import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { redactJson } from "../errors/scrub-secrets.js";
import { VectorStoreIndex } from "../index-store/index.js";
import type { LLM, LLMMetadata } from "../llm/types.js";
import {
  allowedEmbed,
  allowedLLM,
  type BatchTrust,
  checkMode,
  checkQuestionConfig,
  checkQuestionItem,
  indexUnderRoots,
} from "./batch-trust.js";
import { indexQuery } from "./index-query.js";
import { questionEngine } from "./question-engine.js";
import type { QuestionRunConfig } from "./question-run-config.js";

const OVERRIDES = [
  "mode",
  "llm",
  "topK",
  "systemPrompt",
  "textQaTemplate",
  "refineTemplate",
  "summaryTemplate",
];

type Env = Readonly<Record<string, string | undefined>>;

/**
 * How a model spec becomes a model: the command line's reading of `--llm`/`--embed` (`cli/models.ts`), passed
 * in so that this room sits below the CLI.
 */
export interface SpecModels {
  llm(
    spec: string | undefined,
    options: { contextWindow: number | undefined; env: Env },
  ): { create(): LLM; metadata(): LLMMetadata; baseURL?: string | undefined };
  embedder(spec: string | undefined, env: Env): { create(): Embedder };
}

/** Options of {@link createCliProcessors}. */
export interface CliProcessorsOptions {
  /** The process's environment: API keys, base URLs. */
  env: Env;
  /** Where paid model calls are kept; entries are written scrubbed of the secrets. */
  store: CallCacheStore;
  /** What the operator decided: models items and jobs may choose, index roots. */
  trust: BatchTrust;
  /** Scrubs answers, errors and cache entries of the API keys and passwords, as `ask` output is. */
  redact: (text: string) => string;
  /** How specs become models. */
  models: SpecModels;
  /**
   * More work kinds, built on these processors' cached models and indexes (the CLI adds `eval-question`, whose
   * scoring lives above this room). @default none
   */
  moreProcessors?: (borrowed: BorrowedModels) => Record<string, BatchProcessor>;
}

/** What {@link CliProcessorsOptions.moreProcessors} borrows: the checked trust and the cached models and indexes. */
export interface BorrowedModels {
  trust: BatchTrust;
  /** The model of a spec allowed by `trust`, its calls through the call cache. */
  modelFor: (spec: string | null, contextWindow: number | null) => LLM;
  indexFor: (dir: string, embed: string | null) => Promise<VectorStoreIndex>;
}

/**
 * The processors a CLI batch or worker runs: `question` (through a query engine over the persisted index),
 * `llm-call` (one model call, the unit of a distributed tree_summarize), and any `moreProcessors`. Every model call goes through
 * the call cache `store`, so a retried item pays only for the calls it had not finished. Items and job settings
 * are untrusted: checked against {@link BatchTrust} and a schema before use. Answers, error messages and cache
 * entries are scrubbed of the API keys and passwords as `ask` output is.
 */
export function createCliProcessors({
  env,
  store: rawStore,
  trust,
  redact,
  models: specModels,
  moreProcessors,
}: CliProcessorsOptions): {
  processors: Record<string, BatchProcessor>;
  close(): Promise<void>;
} {
  const store: CallCacheStore = {
    get: (key) => rawStore.get(key),
    set: (key, entry) => rawStore.set(key, { ...entry, text: redact(entry.text) }),
  };
  const indexes = new Map<string, Promise<VectorStoreIndex>>();
  const models = new Map<string, LLM>();
  const queued = new Map<string, Promise<QueueLLM>>();
  const engines = new Map<string, Promise<QuestionEngine>>();

  const modelFor = (spec: string | null, contextWindow: number | null): LLM => {
    const key = JSON.stringify([spec, contextWindow]);
    let llm = models.get(key);
    if (!llm) {
      const choice = specModels.llm(spec ?? undefined, { contextWindow: contextWindow ?? undefined, env });
      llm = withCallCache({ llm: choice.create(), store, baseURL: choice.baseURL });
      models.set(key, llm);
    }
    return llm;
  };

  // With a per-request limit, each call is a job on the call queue, run by the llm-call processor below.
  const queuedModelFor = (
    spec: string | null,
    contextWindow: number | null,
    callQueue: NonNullable<BatchProcessorContext["callQueue"]>,
  ): Promise<LLM> => {
    const key = JSON.stringify([spec, contextWindow, callQueue.queueName]);
    let pending = queued.get(key);
    if (!pending) {
      const choice = specModels.llm(spec ?? undefined, { contextWindow: contextWindow ?? undefined, env });
      pending = createQueueLLM({
        ...callQueue,
        metadata: choice.metadata(),
        config: { llm: spec, contextWindow },
        baseURL: choice.baseURL,
      });
      queued.set(key, pending);
    }
    return pending;
  };

  const indexFor = (dir: string, embed: string | null): Promise<VectorStoreIndex> => {
    const key = JSON.stringify([dir, embed]);
    let pending = indexes.get(key);
    if (!pending) {
      // Loaded once; the offline embedding model weights queries by the index's own documents (queryEmbedModel).
      pending = VectorStoreIndex.load(dir, {
        embedModel: specModels.embedder(embed ?? undefined, env).create(),
      });
      indexes.set(key, pending);
    }
    return pending;
  };

  const engineFor = async (item: BatchItem, context: BatchProcessorContext): Promise<QuestionEngine> => {
    checkQuestionConfig(context.config);
    checkQuestionItem(item);
    const config = context.config as QuestionRunConfig;
    const settings: Record<string, JsonValue | undefined> = { ...config };
    for (const name of OVERRIDES)
      if (item[name] !== undefined && item[name] !== null) settings[name] = item[name];
    const runSpec = allowedLLM(config.llm, trust, "config");
    settings.llm =
      item.llm === undefined || item.llm === null
        ? runSpec
        : allowedLLM(item.llm, trust, `item "${item.id}"`);
    const mode = checkMode(settings.mode, `item "${item.id}".mode`);
    const embed = allowedEmbed(config.embed, trust);
    const indexDir = trust.store ?? (await indexUnderRoots(config.index, trust));
    const key = JSON.stringify([
      ...OVERRIDES.map((name) => settings[name] ?? null),
      indexDir,
      embed,
      config.contextWindow,
      config.numOutput,
      config.citations === true,
      context.callQueue ?? null,
    ]);
    let pending = engines.get(key);
    if (!pending) {
      pending = (async () => {
        const spec = (settings.llm as string | null) ?? null;
        const llm = context.callQueue
          ? await queuedModelFor(spec, config.contextWindow, context.callQueue)
          : modelFor(spec, config.contextWindow);
        const index = await indexFor(indexDir, embed);
        const text = (name: string) => (typeof settings[name] === "string" ? settings[name] : undefined);
        return questionEngine({
          llm,
          query: indexQuery(index, { topK: Number(settings.topK) }),
          mode,
          promptHelper: PromptHelper.fromLLMMetadata(llm.metadata, {
            numOutput: config.numOutput ?? undefined,
          }),
          concurrency: config.concurrency,
          citations: config.citations === true,
          prompts: {
            textQaTemplate: text("textQaTemplate"),
            refineTemplate: text("refineTemplate"),
            summaryTemplate: text("summaryTemplate"),
            systemPrompt: text("systemPrompt"),
          },
        });
      })();
      engines.set(key, pending);
      pending.catch(() => engines.delete(key));
    }
    return pending;
  };

  const llmCall: BatchProcessor = async (item, { config, signal }) => {
    const settings = (
      typeof config === "object" && config !== null && !Array.isArray(config) ? config : {}
    ) as Record<string, JsonValue>;
    const spec = allowedLLM(settings.llm, trust, "config");
    const contextWindow = settings.contextWindow ?? null;
    if (
      contextWindow !== null &&
      !(typeof contextWindow === "number" && Number.isInteger(contextWindow) && contextWindow > 0)
    ) {
      throw new InvalidArgumentError({
        parameter: "config.contextWindow",
        value: contextWindow,
        expected: "be a positive whole number or null",
      });
    }
    if (!Array.isArray(item.messages) && typeof item.prompt !== "string") {
      throw new InvalidArgumentError({
        parameter: `item "${item.id}".prompt`,
        value: item.prompt,
        expected: "be a string (or the item carry `messages`)",
      });
    }
    const llm = modelFor(spec, contextWindow);
    const options = {
      signal,
      ...(typeof item.maxTokens === "number" ? { maxTokens: item.maxTokens } : {}),
    };
    const result = Array.isArray(item.messages)
      ? await llm.chat(item.messages as never, options)
      : await llm.complete(String(item.prompt), options);
    const usage = {
      llmCalls: 1,
      promptTokens: result.usage?.promptTokens ?? 0,
      completionTokens: result.usage?.completionTokens ?? 0,
      retries: result.usage?.retries ?? 0,
    };
    return { value: result.text, usage };
  };

  // What leaves a processor (into --out, a job's return value or failed reason) is scrubbed as `ask` output is.
  const scrubbed =
    (processor: BatchProcessor): BatchProcessor =>
    async (item, context) => {
      try {
        const result = await processor(item, context);
        return { ...result, value: redactJson(result.value, redact) };
      } catch (error) {
        if (error instanceof Error) error.message = redact(error.message);
        throw error;
      }
    };

  return {
    processors: {
      question: scrubbed(createQuestionProcessor({ engineFor }) as BatchProcessor),
      "llm-call": scrubbed(llmCall),
      ...Object.fromEntries(
        Object.entries(moreProcessors?.({ trust, modelFor, indexFor }) ?? {}).map(([name, processor]) => [
          name,
          scrubbed(processor),
        ]),
      ),
    },
    async close() {
      const models = await Promise.allSettled(queued.values());
      await Promise.all(
        models.map((model) => (model.status === "fulfilled" ? model.value.close() : undefined)),
      );
    },
  };
}
