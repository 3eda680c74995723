import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { TextNode } from "./text-node.js";

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
  if (!Array.isArray(value)) {
    throw new InvalidArgumentError({ parameter, value, expected: `be an array of TextNode (${HOW})` });
  }
  for (const [index, node] of value.entries()) checkTextNode(node, `${parameter}[${index}]`);
}
