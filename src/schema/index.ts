export type { ContentBlock, ImageBlock, ImageDetail, TextBlock } from "./content-block.js";
export { ImageNode, type ImageNodeInit } from "./image-node.js";
export {
  formatNodeLocation,
  getNodeLocation,
  LOCATION_KEY,
  type LocationRange,
  type NodeLocation,
} from "./node-location.js";
export { type Metadata, MetadataMode, type NodeWithScore, TextNode, type TextNodeInit } from "./text-node.js";
