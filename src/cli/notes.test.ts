import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OPTIMIZER_FALLBACK_EVENT } from "../events/step-listing.test.util.js";
import type { LLMMetadata } from "../llm/types.js";
import { imageStep } from "../postprocessor/image-step.js";
import { ImageNode } from "../schema/image-node.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { TextNode } from "../schema/text-node.js";
import { attachesImages, imageNotes, optimizerNotes } from "./notes.js";

const dir = mkdtempSync(join(tmpdir(), "ragsynth-image-step-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, "docs"));
writeFileSync(join(dir, "docs", "chart.png"), pngOfSize(4, 4));
writeFileSync(join(dir, "secret.png"), pngOfSize(4, 4));
const chunk = new TextNode({
  id: "docs/a.md#0",
  text: "![chart](chart.png) ![secret](../secret.png)",
  metadata: { file_path: "docs/a.md" },
});
const imageDocument = new ImageNode({ id: "docs/chart.png", imagePath: join(dir, "docs", "chart.png") });
const vision: LLMMetadata = {
  model: "gpt-4o-mini",
  contextWindow: 128_000,
  isChatModel: true,
  imageInput: "pixels",
};

describe("attachesImages", () => {
  it("attaches only with --vision, or offline where captions never leave the machine", () => {
    expect(attachesImages(false, vision)).toBe(false);
    expect(attachesImages(true, vision)).toBe(true);
    expect(attachesImages(false, { ...vision, model: "extractive", imageInput: "captions" })).toBe(true);
  });
});

describe("imageStep", () => {
  it("without --vision leaves every image out and counts them, references and image documents alike", async () => {
    const { postprocessor, report } = imageStep({ attach: false, paths: ["docs"], cwd: dir });
    const nodes = await postprocessor.postprocessNodes([{ node: chunk }, { node: imageDocument }], {
      query: "q",
    });
    expect(nodes.map(({ node }) => node.id)).toEqual(["docs/a.md#0"]);
    expect(report).toMatchObject({ attached: 0, withheld: 3, skipped: [] });
    expect(imageNotes(report, vision, false)).toEqual([
      "ragsynth: note: 3 images in the sources were not sent to the model; pass --vision to attach them.",
    ]);
  });

  it("with --vision attaches the images under the paths given as bytes, and names the one outside", async () => {
    const { postprocessor, report } = imageStep({ attach: true, paths: ["docs"], cwd: dir });
    const nodes = await postprocessor.postprocessNodes([{ node: chunk }, { node: imageDocument }], {
      query: "q",
    });
    expect(nodes.map(({ node }) => node.id)).toEqual(["docs/a.md#0", "docs/a.md#0#image0", "docs/chart.png"]);
    expect(nodes.every(({ node }) => !ImageNode.isInstance(node) || node.image !== undefined)).toBe(true);
    expect(report.attached).toBe(2);
    expect(report.skipped).toMatchObject([{ src: "../secret.png", code: "outside_roots" }]);
    expect(imageNotes(report, vision, false)).toEqual([
      "ragsynth: note: image ../secret.png (in docs/a.md#0) skipped: leads outside the folders given (a symbolic link out, or ../).",
      "ragsynth: note: the answer comes from the text of those chunks.",
      "ragsynth: note: sent 2 local images to gpt-4o-mini (--vision).",
    ]);
  });

  it("resolves a chunk's file_path from the folder the index named it from, not the working folder", async () => {
    // Asked from inside docs/ (`ask .`), the index still names the chunk docs/a.md, from `dir`.
    const inside = join(dir, "docs");
    const named = imageStep({ attach: true, paths: ["."], cwd: inside, baseDir: dir });
    const found = await named.postprocessor.postprocessNodes([{ node: chunk }], { query: "q" });
    expect(found.map(({ node }) => node.id)).toEqual(["docs/a.md#0", "docs/a.md#0#image0"]);
    expect(named.report.skipped).toMatchObject([{ src: "../secret.png", code: "outside_roots" }]);
    // Resolved from the working folder instead, the chart is looked for at docs/docs/chart.png.
    const fromCwd = imageStep({ attach: true, paths: ["."], cwd: inside });
    const lost = await fromCwd.postprocessor.postprocessNodes([{ node: chunk }], { query: "q" });
    expect(lost.map(({ node }) => node.id)).toEqual(["docs/a.md#0"]);
  });
});

describe("notes on skipped images", () => {
  const badges = ["npm/v", "npm/dm", "node/v"].map((badge) => ({
    src: `https://img.shields.io/${badge}/raw-body.svg`,
    nodeId: "docs/raw-body.md#0",
    code: "remote" as const,
    reason: "a remote image (not fetched, and not sent unless remote is set)",
  }));
  const outside = {
    src: "../secret.png",
    nodeId: "docs/a.md#0",
    code: "outside_roots" as const,
    reason: "leads outside the folders given (a symbolic link out, or ../)",
  };
  const report = { attach: true, attached: 0, withheld: 0, skipped: [...badges, outside] };

  it("count remote images on one line, the first named, and name each other one", () => {
    expect(imageNotes(report, vision, false)).toEqual([
      "ragsynth: note: image ../secret.png (in docs/a.md#0) skipped: leads outside the folders given (a symbolic link out, or ../).",
      "ragsynth: note: 3 images skipped: a remote image (the CLI neither fetches nor sends remote images) (the first: https://img.shields.io/npm/v/raw-body.svg in docs/raw-body.md#0; -v lists them).",
      "ragsynth: note: the answer comes from the text of those chunks.",
    ]);
    const many = {
      ...report,
      skipped: Array.from({ length: 7 }, (_, index) => ({ ...outside, src: `../${index}.png` })),
    };
    const notes = imageNotes(many, vision, false);
    expect(notes.filter((note) => note.includes("leads outside"))).toHaveLength(5);
    expect(notes).toContain("ragsynth: note: 2 more images skipped (-v lists them).");
  });

  it("name every image with -v", () => {
    const notes = imageNotes(report, vision, true);
    expect(notes.filter((note) => note.startsWith("ragsynth: note: image "))).toHaveLength(4);
    expect(notes[0]).toBe(
      "ragsynth: note: image https://img.shields.io/npm/v/raw-body.svg (in docs/raw-body.md#0) skipped: a remote image (the CLI neither fetches nor sends remote images).",
    );
  });
});

describe("optimizer fallbacks", () => {
  it("are noted once on stderr", () => {
    expect(optimizerNotes([OPTIMIZER_FALLBACK_EVENT])).toEqual([
      "ragsynth: note: in 2 of 3 chunks no sentence passed the --optimizer cutoff; each kept its best sentence. Lower the threshold to keep more.",
    ]);
  });
});
