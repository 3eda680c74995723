import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkTextNodes } from "../schema/check-text-nodes.js";
import type { BuildIndexOptions } from "./build-index-options.js";

/**
 * The options with an embedding model (the offline HashingEmbedder when none was given), after checking, for plain
 * JavaScript callers, that the texts are an array of nodes.
 */
export function withDefaultEmbedModel<Options extends BuildIndexOptions>(
  parameter: string,
  texts: unknown,
  options: Options,
): Options & { embedModel: Embedder } {
  checkTextNodes(texts, parameter);
  const given = options ?? ({} as Options);
  if (given.embedModel === undefined && "embedder" in given) throw embedModelError(undefined, true);
  if (given.embedModel !== undefined) checkEmbedModel(given.embedModel);
  return { ...given, embedModel: given.embedModel ?? new HashingEmbedder() };
}

/** A typed error, for plain-JS callers too, when `embedModel` is not a model; names the 0.1 option `embedder`. */
export function checkEmbedModel(embedModel: unknown, renamed = false): void {
  const isModel =
    typeof embedModel === "object" &&
    embedModel !== null &&
    typeof (embedModel as Embedder).getTextEmbeddings === "function";
  if (!isModel) throw embedModelError(embedModel, renamed);
}

function embedModelError(embedModel: unknown, renamed: boolean): InvalidArgumentError {
  return new InvalidArgumentError({
    parameter: "embedModel",
    value: embedModel,
    expected: "be an embedding model (an object with getTextEmbeddings and getQueryEmbedding)",
    hint: renamed
      ? "The option `embedder` was renamed to `embedModel` in 0.2.0: pass { embedModel }."
      : "Pass one, such as new HashingEmbedder() or new OpenAILikeEmbedding({ model }).",
  });
}

/**
 * Whether an index keeps its embedding model's vectors on disk. A `lexical` embedder's (HashingEmbedder's) are not
 * kept: they cost less to compute again (only for a dense search) than to store, read and check.
 */
export function storesVectors(embedModel: Embedder): boolean {
  return embedModel.lexical !== true;
}
