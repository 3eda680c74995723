import { resolve } from "node:path";
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
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { VectorStoreIndex } from "../index-store/index.js";
import type { LLM } from "../llm/types.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import { RESPONSE_MODES, type ResponseMode } from "../synthesizer/types.js";
import { chooseEmbedder, chooseLLM } from "./models.js";
import { createPromptHelper } from "./pipeline.js";
import { UsageError } from "./usage-error.js";

/**
 * The settings of a questions run, as they travel in every job. Model *specs*, never keys: each worker
 * reads its own API key from its environment. Items may override `mode`, `llm`, `topK` and the templates.
 */
export interface QuestionRunConfig {
  [field: string]: JsonValue;
  index: string;
  llm: string | null;
  embed: string | null;
  mode: ResponseMode;
  topK: number;
  contextWindow: number | null;
  numOutput: number | null;
  concurrency: number;
}

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
 * The processors a CLI batch or worker runs: `question` (through a query engine over the persisted index)
 * and `llm-call` (one model call, the unit of a distributed tree_summarize). Every model call goes through
 * the call cache `store`, so a retried item pays only for the calls it had not finished.
 */
export function createCliProcessors({ env, store }: { env: Env; store: CallCacheStore }): {
  processors: Record<string, BatchProcessor>;
  close(): Promise<void>;
} {
  const indexes = new Map<string, Promise<VectorStoreIndex>>();
  const models = new Map<string, LLM>();
  const queued = new Map<string, Promise<QueueLLM>>();
  const engines = new Map<string, Promise<RetrieverQueryEngine>>();

  const modelFor = (spec: string | null, contextWindow: number | null): LLM => {
    const key = JSON.stringify([spec, contextWindow]);
    let llm = models.get(key);
    if (!llm) {
      const choice = chooseLLM(spec ?? undefined, { contextWindow: contextWindow ?? undefined, env });
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
      const choice = chooseLLM(spec ?? undefined, { contextWindow: contextWindow ?? undefined, env });
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
      pending = (async () => {
        const choice = chooseEmbedder(embed ?? undefined, env);
        const embedModel = choice.create();
        const index = await VectorStoreIndex.load(dir, { embedModel });
        // The offline embedding model weights queries by IDF over the indexed chunks, as every worker does alike.
        if (!(embedModel instanceof HashingEmbedder)) return index;
        return VectorStoreIndex.load(dir, {
          embedModel: choice.create(() => index.nodes.map((node) => node.text)),
        });
      })();
      indexes.set(key, pending);
    }
    return pending;
  };

  const engineFor = (item: BatchItem, context: BatchProcessorContext): Promise<RetrieverQueryEngine> => {
    const config = context.config as QuestionRunConfig;
    const settings: Record<string, JsonValue | undefined> = { ...config };
    for (const name of OVERRIDES) if (item[name] !== undefined) settings[name] = item[name];
    const key = JSON.stringify([
      ...OVERRIDES.map((name) => settings[name] ?? null),
      context.callQueue ?? null,
    ]);
    let pending = engines.get(key);
    if (!pending) {
      pending = (async () => {
        const mode = settings.mode as ResponseMode;
        if (!RESPONSE_MODES.includes(mode)) {
          throw new UsageError(
            `Item "${item.id}" asks for mode "${String(mode)}".`,
            `Modes: ${RESPONSE_MODES.join(", ")}.`,
          );
        }
        const spec = (settings.llm as string | null) ?? null;
        const llm = context.callQueue
          ? await queuedModelFor(spec, config.contextWindow, context.callQueue)
          : modelFor(spec, config.contextWindow);
        const index = await indexFor(config.index, config.embed);
        const template = (name: string) =>
          typeof settings[name] === "string"
            ? { [name]: new PromptTemplate({ template: settings[name] as string }) }
            : {};
        return new RetrieverQueryEngine({
          retriever: index.asRetriever({ similarityTopK: Number(settings.topK) }),
          responseMode: mode,
          llm,
          promptHelper: createPromptHelper(llm.metadata, config.numOutput ?? undefined),
          concurrency: config.concurrency,
          ...(typeof settings.systemPrompt === "string" ? { systemPrompt: settings.systemPrompt } : {}),
          ...template("textQaTemplate"),
          ...template("refineTemplate"),
          ...template("summaryTemplate"),
          ...(llm.metadata.tokenizer ? { tokenizer: llm.metadata.tokenizer } : {}),
        });
      })();
      engines.set(key, pending);
      pending.catch(() => engines.delete(key));
    }
    return pending;
  };

  const llmCall: BatchProcessor = async (item, { config, signal }) => {
    const { llm: spec = null, contextWindow = null } = (config ?? {}) as {
      llm?: string | null;
      contextWindow?: number | null;
    };
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

  return {
    processors: {
      question: createQuestionProcessor({ engineFor }) as BatchProcessor,
      "llm-call": llmCall,
    },
    async close() {
      const models = await Promise.allSettled(queued.values());
      await Promise.all(
        models.map((model) => (model.status === "fulfilled" ? model.value.close() : undefined)),
      );
    },
  };
}

/** The run's settings from the command line; the index folder is made absolute so any worker can find it. */
export function questionRunConfig(
  options: {
    index: string | undefined;
    llm: string | undefined;
    embed: string | undefined;
    mode: ResponseMode;
    topK: number;
    contextWindow: number | undefined;
    numOutput: number | undefined;
  },
  cwd: string,
): QuestionRunConfig {
  return {
    index: resolve(cwd, options.index ?? "."),
    llm: options.llm ?? null,
    embed: options.embed ?? null,
    mode: options.mode,
    topK: options.topK,
    contextWindow: options.contextWindow ?? null,
    numOutput: options.numOutput ?? null,
    concurrency: 4,
  };
}
