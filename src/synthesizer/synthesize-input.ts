import { withImageDimensions } from "../budget/image-dimensions.js";
import { checkString } from "../errors/check-string.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { LLM } from "../llm/types.js";
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
  checkString("query", options?.query);
  if (!Array.isArray(options.nodes)) {
    throw new InvalidArgumentError({
      parameter: "nodes",
      value: options.nodes,
      expected: "be an array of NodeWithScore",
    });
  }
  if (options.additionalSourceNodes !== undefined && !Array.isArray(options.additionalSourceNodes)) {
    throw new InvalidArgumentError({
      parameter: "additionalSourceNodes",
      value: options.additionalSourceNodes,
      expected: "be an array of NodeWithScore",
    });
  }
  checkNodes(options.nodes, "nodes");
  if (options.additionalSourceNodes) checkNodes(options.additionalSourceNodes, "additionalSourceNodes");
}

function checkNodes(nodes: readonly unknown[], parameter: string) {
  for (const [index, entry] of nodes.entries()) {
    const node = (entry as { node?: { getContent?: unknown; text?: unknown } } | null)?.node;
    if (typeof node?.getContent !== "function") {
      throw new InvalidArgumentError({
        parameter: `${parameter}[${index}]`,
        value: entry,
        expected: "be a NodeWithScore: { node: TextNode, score? }",
        hint: "Wrap plain text as { node: new TextNode({ text }) }; nodes parsed from JSON need new TextNode(json).",
      });
    }
    if (typeof node.text !== "string") {
      throw new InvalidArgumentError({
        parameter: `${parameter}[${index}].node.text`,
        value: node.text,
        expected: "be a string",
      });
    }
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
