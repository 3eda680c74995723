import { type ReferencedImagesOptions, withReferencedImages } from "../reader/image-references.js";
import type { NodePostprocessor } from "./types.js";

/** `withReferencedImages` as a node postprocessor, for the query engine's `nodePostprocessors`. */
export function referencedImagesPostprocessor(options: ReferencedImagesOptions = {}): NodePostprocessor {
  return {
    name: "ReferencedImages",
    postprocessNodes: (nodes) => withReferencedImages(nodes, options),
  };
}
