// Every error class a caller can import, with fields that build it and one of its required fields: the error tests'
// one table (identity, and construction by plain-JavaScript callers).
import {
  ContextOverflowError,
  IndexSaveError,
  InvalidArgumentError,
  LLMError,
  MissingTemplateVariableError,
  NoObjectGeneratedError,
  OptimizerZeroSentencesError,
  type RagsynthError,
  RerankParseError,
} from "ragsynth";
import { BatchInputError, MissingPeerDependencyError, RedisUnavailableError } from "ragsynth/batch";

/** An error class as a JavaScript caller sees it: anything may be passed to it. */
export interface AnyErrorClass {
  new (fields?: unknown): RagsynthError;
  readonly name: string;
  isInstance(error: unknown): boolean;
}

export const loose = (errorClass: unknown) => errorClass as AnyErrorClass;

/** In this order: ContextOverflowError first, LLMError third (the identity tests pick them by place). */
export const errorClasses: {
  errorClass: AnyErrorClass;
  fields: Record<string, unknown>;
  required: string;
}[] = (
  [
    [ContextOverflowError, { contextWindow: 10, numOutput: 5, promptTokens: 8 }, "promptTokens"],
    [InvalidArgumentError, { parameter: "x", value: 1, expected: "be 2" }, "expected"],
    [LLMError, { code: "llm_server_error", message: "boom", status: 500, retryable: true }, "message"],
    [MissingTemplateVariableError, { variables: ["a"], template: "{a}" }, "variables"],
    [NoObjectGeneratedError, { text: "nope" }, "text"],
    [IndexSaveError, { path: "p/i.sqlite", dir: "p", cause: new Error("EACCES") }, "dir"],
    [
      OptimizerZeroSentencesError,
      { nodeId: "n", sentenceCount: 1, bestSimilarity: 0, thresholdCutoff: 0.5 },
      "sentenceCount",
    ],
    [RerankParseError, { text: "?", batchIndex: 0, malformedLines: [] }, "malformedLines"],
    [BatchInputError, { message: "bad line", line: 1 }, "message"],
    [MissingPeerDependencyError, { packages: ["bullmq"], feature: "Redis" }, "packages"],
    [RedisUnavailableError, { redisUrl: "redis://127.0.0.1:6379", timeoutMs: 100 }, "redisUrl"],
  ] as const
).map(([errorClass, fields, required]) => ({ errorClass: loose(errorClass), fields, required }));
