import { checkArrayOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { NodeWithScore, TextNode } from "./text-node.js";

const HOW =
  "readDocuments(...).documents, or new TextNode({ text }); an object parsed from JSON needs new TextNode(json)";

/**
 * Throws an {@link InvalidArgumentError} naming the entry (`documents[3]`) unless `value` is a TextNode (or an
 * ImageNode): for plain JavaScript callers, whose `{ text }` object or `undefined` in a list would otherwise fail deep
 * inside a splitter or an index build with a TypeError. A node is recognized by its fields and methods, not by
 * `instanceof`, so a node from another copy of the package passes.
 */
export function checkTextNode(value: unknown, parameter: string): asserts value is TextNode {
  const node = value as Partial<Record<keyof TextNode, unknown>> | null | undefined;
  if (
    typeof node !== "object" ||
    node === null ||
    typeof node.id !== "string" ||
    typeof node.text !== "string" ||
    typeof node.getContent !== "function" ||
    typeof node.getMetadataStr !== "function"
  ) {
    throw new InvalidArgumentError({ parameter, value, expected: `be a TextNode (${HOW})` });
  }
}

/** {@link checkTextNode} for an array and each of its entries (`documents`, then `documents[index]`). */
export function checkTextNodes(value: unknown, parameter: string): asserts value is readonly TextNode[] {
  checkArrayOf(parameter, value, `be an array of TextNode (${HOW})`, checkTextNode);
}

/**
 * Throws an {@link InvalidArgumentError} naming the entry (`nodes[2]`, `nodes[2].node.text`) unless `value` is an
 * array of NodeWithScore (`{ node, score? }`, as retrievers return): the one check of retrieved nodes passed in by a
 * caller (the synthesizer's `nodes`, `withReferencedImages`).
 */
export function checkNodesWithScore(
  value: unknown,
  parameter: string,
): asserts value is readonly NodeWithScore[] {
  if (!Array.isArray(value)) {
    throw new InvalidArgumentError({
      parameter,
      value,
      expected: "be an array of NodeWithScore",
      hint: "Pass the retrieved nodes: await retriever.retrieve({ query }).",
    });
  }
  for (const [index, entry] of value.entries()) {
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
