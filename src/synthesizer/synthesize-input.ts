import { withImageDimensions } from "../budget/image-dimensions.js";
import { optionsOf } from "../errors/check-options.js";
import { checkString } from "../errors/check-string.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { LLM } from "../llm/types.js";
import { checkNodesWithScore } from "../schema/check-text-nodes.js";
import type { ContentBlock } from "../schema/content-block.js";
import { ImageNode } from "../schema/image-node.js";
import { nodesToBlocks } from "../schema/nodes-to-blocks.js";
import { MetadataMode, type NodeWithScore } from "../schema/text-node.js";
import type { SynthesizeOptions } from "./types.js";

// What a synthesis is given, checked before anything runs: the request, the nodes, a model for images.

/**
 * Checks a `synthesize()` / `stream()` request, also for plain-JS callers.
 * @throws InvalidArgumentError naming the field, what it must be and what arrived
 */
export function checkSynthesizeOptions(options: SynthesizeOptions): void {
  if (typeof options === "object" && options !== null && "stream" in options) {
    throw new InvalidArgumentError({
      parameter: "stream",
      value: (options as { stream?: unknown }).stream,
      expected: "not be passed to synthesize()",
      hint: "To stream, call synthesizer.stream({ query, nodes }) and read its textStream.",
    });
  }
  const given = optionsOf("options", options, "{ query, nodes, additionalSourceNodes?, signal? }");
  checkString("query", given.query);
  checkNodesWithScore(given.nodes, "nodes");
  if (given.additionalSourceNodes !== undefined) {
    checkNodesWithScore(given.additionalSourceNodes, "additionalSourceNodes");
  }
}

/** True when no node has anything to send (all text empty or whitespace, no images). */
export function allBlank(nodes: readonly NodeWithScore[]): boolean {
  return nodes.every(
    (entry) => !ImageNode.isInstance(entry.node) && entry.node.getContent(MetadataMode.LLM).trim() === "",
  );
}

/**
 * Throws unless the model takes images (LlamaIndex: "Multimodal synthesis requires a chat LLM").
 * @throws InvalidArgumentError naming what the metadata must say
 */
export function checkImageModel(llm: LLM | undefined, mode: string): void {
  const input = llm?.metadata.imageInput;
  if (input === "captions" || (input === "pixels" && llm?.metadata.isChatModel)) return;
  throw new InvalidArgumentError({
    parameter: "llm",
    value: llm?.metadata.model,
    expected: `take images for multimodal synthesis in mode "${mode}": a chat model with metadata.imageInput "pixels", or a model with imageInput "captions"`,
    hint: llm
      ? `Model "${llm.metadata.model}" says isChatModel ${llm.metadata.isChatModel}, imageInput ${llm.metadata.imageInput ?? "unset"}. Use a vision model (new OpenAILike({ model, imageInput: "pixels" })), or pass only text nodes.`
      : "Multimodal synthesis requires a chat LLM that takes images.",
  });
}

/** The nodes as blocks, image sizes and media types read from their headers (never decoding pixels). */
export async function prepareBlocks(nodes: readonly NodeWithScore[]): Promise<ContentBlock[]> {
  return Promise.all(
    nodesToBlocks(nodes).map((block) => (block.type === "image" ? withImageDimensions(block) : block)),
  );
}
