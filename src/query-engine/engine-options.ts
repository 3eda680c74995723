import type { Tracer } from "@opentelemetry/api";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEventHandler } from "../events/events.js";
import type { NodePostprocessor } from "../postprocessor/types.js";
import type { RetrievalMode, Retriever } from "../retrieval/retriever.js";
import {
  type GetResponseSynthesizerOptions,
  getResponseSynthesizer,
} from "../synthesizer/get-response-synthesizer.js";
import type { ResponseSynthesizer } from "../synthesizer/types.js";
import type { TokenizerLike } from "../tokenizer/tokenizer.js";

/** Options every engine takes, however its synthesizer is made. */
export interface QueryEngineSettings {
  /** Finds the nodes for a query. */
  retriever: Retriever;
  /** Run in list order on the retrieved nodes, each with the query and the signal. @default [] */
  nodePostprocessors?: readonly NodePostprocessor[] | undefined;
  /** Receives the engine's events; also handed to the synthesizer the engine builds. */
  onEvent?: RagsynthEventHandler | undefined;
  /** The OpenTelemetry tracer; also handed to the synthesizer the engine builds. @default trace.getTracer("ragsynth") */
  tracer?: Tracer | undefined;
  /** Counts node tokens for events. @default the model's encoding, or "cl100k_base" */
  tokenizer?: TokenizerLike | undefined;
}

/** The options {@link getResponseSynthesizer} takes, less those the engine shares with it. */
export type SynthesizerBuildOptions<T = unknown> = Omit<
  GetResponseSynthesizerOptions<T>,
  "onEvent" | "tracer"
>;

/**
 * Either a ready synthesizer, or the options to build one (`responseMode`, `llm`, templates, …), never both.
 */
export type RetrieverQueryEngineOptions<T = unknown> =
  | (QueryEngineSettings & { responseSynthesizer: ResponseSynthesizer<T> } & {
      [Key in keyof SynthesizerBuildOptions<T>]?: never;
    })
  | (QueryEngineSettings & { responseSynthesizer?: undefined } & SynthesizerBuildOptions<T>);

/**
 * Options of `VectorStoreIndex.asQueryEngine`: the engine's options without `retriever` (the index
 * provides it), plus the retriever's `similarityTopK`.
 */
export type AsQueryEngineOptions<T = unknown> = (RetrieverQueryEngineOptions<T> extends infer Options
  ? Options extends unknown
    ? Omit<Options, "retriever">
    : never
  : never) & {
  /** How many nodes the index retrieves. @default 2 (LlamaIndex's default) */
  similarityTopK?: number | undefined;
  /** How the index ranks nodes. @default "lexical" with the offline HashingEmbedder, else "hybrid" */
  retrievalMode?: RetrievalMode | undefined;
};

const ENGINE_KEYS = [
  "retriever",
  "nodePostprocessors",
  "onEvent",
  "tracer",
  "tokenizer",
  "responseSynthesizer",
];

const SYNTHESIZER_KEYS = [
  "responseMode",
  "llm",
  "promptHelper",
  "systemPrompt",
  "emptyResponse",
  "concurrency",
  "verbose",
  "captureContent",
  "_internal",
  "multimodal",
  "textQaTemplate",
  "refineTemplate",
  "summaryTemplate",
  "simpleTemplate",
  "structuredAnswerFiltering",
  "outputSchema",
  "separator",
  "chatContentQaTemplate",
  "chatContentRefineTemplate",
  "chatContentSummaryTemplate",
] as const satisfies readonly (keyof SynthesizerBuildOptions)[];

// A compile error here means getResponseSynthesizer gained an option that SYNTHESIZER_KEYS lacks.
type UnlistedSynthesizerKey = Exclude<keyof SynthesizerBuildOptions, (typeof SYNTHESIZER_KEYS)[number]>;
const allSynthesizerKeysListed: [UnlistedSynthesizerKey] extends [never] ? true : UnlistedSynthesizerKey =
  true;
void allSynthesizerKeysListed;

/**
 * The engine's synthesizer: the one given, or one built with `getResponseSynthesizer`.
 * @throws InvalidArgumentError for synthesizer options next to `responseSynthesizer`, or unknown options
 */
export function resolveSynthesizer<T>(options: RetrieverQueryEngineOptions<T>): ResponseSynthesizer<T> {
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  const known: readonly string[] = [...ENGINE_KEYS, ...SYNTHESIZER_KEYS];
  for (const [key, value] of given) {
    if (!known.includes(key)) {
      throw new InvalidArgumentError({
        parameter: key,
        value,
        expected: `be a known option (${known.join(", ")})`,
        hint: "Unknown options are rejected rather than ignored.",
      });
    }
  }
  const { responseSynthesizer, onEvent, tracer } = options;
  if (responseSynthesizer === undefined) {
    const build: Record<string, unknown> = {};
    for (const [key, value] of given) if (!ENGINE_KEYS.includes(key)) build[key] = value;
    if (onEvent) build.onEvent = onEvent;
    if (tracer) build.tracer = tracer;
    return getResponseSynthesizer(build as GetResponseSynthesizerOptions<T>);
  }
  if (
    typeof responseSynthesizer?.synthesize !== "function" ||
    typeof responseSynthesizer.stream !== "function"
  ) {
    throw new InvalidArgumentError({
      parameter: "responseSynthesizer",
      value: responseSynthesizer,
      expected: "be a ResponseSynthesizer (synthesize and stream)",
    });
  }
  const conflicting = given.find(([key]) => (SYNTHESIZER_KEYS as readonly string[]).includes(key));
  if (conflicting) {
    throw new InvalidArgumentError({
      parameter: conflicting[0],
      value: conflicting[1],
      expected: "be left out when `responseSynthesizer` is given",
      hint: "Configure the synthesizer you pass, or drop responseSynthesizer and let the engine build one from these options.",
    });
  }
  return responseSynthesizer;
}
