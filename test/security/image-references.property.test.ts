import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { toOpenAIMessages } from "../../src/openai/to-openai-messages.js";
import { withReferencedImages } from "../../src/reader/image-references.js";
import { blocksToText } from "../../src/schema/content-block.js";
import { nodesToBlocks } from "../../src/schema/nodes-to-blocks.js";
import { pngOfSize } from "../../src/schema/png.test.util.js";
import { TextNode } from "../../src/schema/text-node.js";

// base/docs is the root the user gave; everything else is outside. Outside images are valid PNGs with a marker
// appended, so only the containment rule (not the magic-byte check) can keep them out.
const MARKER = "OUTSIDE-SECRET-7c1e9a";
const base = realpathSync(mkdtempSync(join(tmpdir(), "ragsynth-refs-property-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const docs = join(base, "docs");
const inside = new Uint8Array(pngOfSize(2, 2));
const secretPng = Buffer.concat([pngOfSize(3, 3), Buffer.from(MARKER)]);
mkdirSync(join(docs, "guide"), { recursive: true });
mkdirSync(join(docs, "img"));
mkdirSync(join(base, "outside"));
mkdirSync(join(base, "docs-evil"));
writeFileSync(join(docs, "img", "in.png"), inside);
writeFileSync(join(base, "outside", "secret.png"), secretPng);
writeFileSync(join(base, "secret.png"), secretPng);
writeFileSync(join(base, "docs-evil", "in.png"), secretPng);
writeFileSync(join(base, "outside", "env.png"), `RAGSYNTH_API_KEY=${MARKER}\n`);
symlinkSync(join(base, "outside", "secret.png"), join(docs, "img", "out.png"));
symlinkSync(join(docs, "img", "chain2.png"), join(docs, "img", "chain1.png"));
symlinkSync(join(base, "outside", "secret.png"), join(docs, "img", "chain2.png"));
symlinkSync(join(docs, "img", "in.png"), join(docs, "img", "inlink.png"));
symlinkSync(join(base, "outside"), join(docs, "img", "outdir"));
symlinkSync("/proc/self/environ", join(docs, "img", "environ.png"));

const segment = fc.constantFrom(
  "..",
  ".",
  "img",
  "guide",
  "docs",
  "docs-evil",
  "outside",
  "outdir",
  "~",
  "in.png",
  "out.png",
  "secret.png",
  "env.png",
  "chain1.png",
  "inlink.png",
  "environ.png",
);
const prefix = fc.constantFrom(
  "",
  "./",
  "/",
  `${base}/`,
  `${docs}/`,
  "~/",
  "file://",
  `file://${base}/`,
  "C:\\",
);
const encode = (text: string, how: number) =>
  how === 0
    ? text
    : how === 1
      ? text.replace(/\./g, "%2e")
      : how === 2
        ? text.replace(/\//g, "%2F")
        : encodeURIComponent(text);
const reference = fc
  .tuple(
    prefix,
    fc.array(segment, { minLength: 1, maxLength: 7 }),
    fc.constantFrom("/", "\\"),
    fc.integer({ min: 0, max: 3 }),
    fc.constantFrom("", "?v=1", "#top"),
  )
  .map(([start, parts, separator, how, suffix]) => `${start}${encode(parts.join(separator), how)}${suffix}`);

// Known spellings mixed in, so every run also holds references that must pass and ones that must not.
const known = fc.constantFrom(
  "../img/in.png",
  "%2e%2e/img/inlink.png",
  "..\\img\\in.png",
  `${docs}/img/in.png`,
  `file://${docs}/img/in.png`,
  "../img/out.png",
  "../img/chain1.png",
  "../img/outdir/secret.png",
  "../../outside/secret.png",
  "%2e%2e%2F%2e%2e%2Foutside%2Fsecret.png",
  "..\\..\\secret.png",
  `${base}/docs-evil/in.png`,
  `file://${base}/outside/env.png`,
  "../img/environ.png",
);
const anyReference = fc.oneof({ arbitrary: reference, weight: 3 }, { arbitrary: known, weight: 1 });

function containsMarker(bytes: Uint8Array): boolean {
  return Buffer.from(bytes).includes(MARKER);
}

describe("image references, end to end to the request's image parts", () => {
  it("no byte from outside the roots reaches an image part, whatever the reference", async () => {
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(anyReference, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (srcs, html) => {
          const text = srcs.map((src) => (html ? `<img src="${src}" alt="x">` : `![x](${src})`)).join("\n");
          const chunk = new TextNode({
            id: "a.md#0",
            text,
            metadata: { file_path: join(docs, "guide", "a.md") },
          });
          const nodes = await withReferencedImages([{ node: chunk }], { roots: [docs] });
          const blocks = nodesToBlocks(nodes);
          const messages = await toOpenAIMessages([{ role: "user", content: blocksToText(blocks), blocks }]);
          const parts = (messages[0]?.content ?? []) as Array<{ type: string; image_url?: { url: string } }>;
          for (const part of parts) {
            if (part.type !== "image_url") continue;
            const url = part.image_url?.url ?? "";
            const bytes = Buffer.from(url.replace(/^data:[^,]*,/, ""), "base64");
            expect(containsMarker(bytes), `${srcs.join(" ")} → ${url.slice(0, 60)}`).toBe(false);
            // Every image sent is the one image inside the roots.
            expect(new Uint8Array(bytes)).toEqual(inside);
            sent += 1;
          }
          expect(JSON.stringify(messages)).not.toContain(MARKER);
        },
      ),
      { numRuns: 300 },
    );
    // Not vacuous: references that stay inside (`../img/in.png`, `%2e%2e/img/inlink.png`, …) were sent.
    expect(sent).toBeGreaterThan(0);
  });

  it("the fixture is live: the same references are sent when the outside folder is a root too", async () => {
    const chunk = new TextNode({
      id: "a.md#0",
      text: "![x](../img/out.png) ![y](../../outside/secret.png) ![z](../img/chain1.png) ![w](%2e%2e/img/in.png)",
      metadata: { file_path: join(docs, "guide", "a.md") },
    });
    const nodes = await withReferencedImages([{ node: chunk }], { roots: [docs, join(base, "outside")] });
    const blocks = nodesToBlocks(nodes);
    const images = blocks.filter((block) => block.type === "image");
    expect(
      images.map((block) => block.type === "image" && containsMarker(block.data ?? new Uint8Array())),
    ).toEqual([true, true, true, false]);
  });
});
