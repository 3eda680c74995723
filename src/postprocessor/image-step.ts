import path from "node:path";
import type { SkippedImage } from "../reader/image-guard.js";
import { findImageReferences, loadReferencedImages } from "../reader/image-references.js";
import { ImageNode } from "../schema/image-node.js";
import type { NodePostprocessor } from "./types.js";

/** A cheap test for a Markdown or HTML image reference; the postprocessor parses them properly. */

/** What became of a query's images, filled in while it runs. */
export interface ImageReport {
  /** True when images go to the model: `--vision`, or the offline answerer (which reads captions only). */
  attach: boolean;
  /** Images that passed every check and went with their chunks. */
  attached: number;
  /** Images left out by a check, with the reason. */
  skipped: SkippedImage[];
  /** Images not attached because `--vision` was not given. */
  withheld: number;
}

/**
 * One door for a query's images (the CLI's, with `attach` from `--vision`): with `attach`, every image the retrieved chunks reference (and every image
 * document) is checked against the paths the user gave (`realpath`, magic bytes, OpenAI's size caps) and
 * carried as bytes; without it, images are left out and counted, so local files reach a server only with
 * `--vision`.
 */
export function imageStep({
  attach,
  paths,
  cwd,
  baseDir = cwd,
}: {
  attach: boolean;
  /** The paths the user gave (relative to `cwd`): images must lie under them. */
  paths: readonly string[];
  cwd: string;
  /** Where the nodes' relative `file_path`s resolve (an index's `namesFrom`). @default cwd */
  baseDir?: string | undefined;
}): { postprocessor: NodePostprocessor; report: ImageReport } {
  const report: ImageReport = { attach, attached: 0, skipped: [], withheld: 0 };
  const roots = paths.map((given) => path.resolve(cwd, given));
  const postprocessor: NodePostprocessor = {
    name: "ReferencedImages",
    async postprocessNodes(nodes) {
      if (!attach) {
        const text = nodes.filter(({ node }) => !ImageNode.isInstance(node));
        report.withheld += nodes.length - text.length;
        for (const { node } of text) report.withheld += findImageReferences(node.text).length;
        return text;
      }
      const loaded = await loadReferencedImages(nodes, { roots, baseDir });
      report.attached += loaded.attached;
      report.skipped.push(...loaded.skipped);
      return loaded.nodes;
    },
  };
  return { postprocessor, report };
}
