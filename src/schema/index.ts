export { type Metadata, MetadataMode, type NodeWithScore, TextNode, type TextNodeInit } from "./text-node.js";
