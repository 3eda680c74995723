import { describe, expect, it } from "vitest";
import { resolveModelMetadata } from "../llm/resolve-model-metadata.js";
import {
  countImageTokens,
  OPENAI_MAX_IMAGE_TOKENS,
  openAIHighDetailTokens,
  openAIImagePatches,
} from "./image-tokens.js";

describe("OpenAI's image-token rule", () => {
  it("reproduces the published examples", () => {
    // 1024×1024 high: scaled to 768×768, 4 tiles → 765. 2048×4096: 1024×2048 → 768×1536, 6 tiles → 1105.
    expect(openAIHighDetailTokens(1024, 1024)).toBe(765);
    expect(openAIHighDetailTokens(2048, 4096)).toBe(1105);
    expect(
      countImageTokens({ type: "image", url: "u", width: 4096, height: 8192, detail: "low" }).tokens,
    ).toBe(85);
  });

  it("only scales down: a small image is one tile, and no image costs more than 2×4 tiles", () => {
    expect(openAIHighDetailTokens(16, 16)).toBe(255);
    expect(openAIHighDetailTokens(512, 512)).toBe(255);
    expect(openAIHighDetailTokens(513, 512)).toBe(85 + 170 * 2);
    expect(openAIHighDetailTokens(8000, 3000)).toBe(85 + 170 * 2 * 4);
    expect(OPENAI_MAX_IMAGE_TOKENS).toBe(1445);
    for (const [w, h] of [
      [1, 5000],
      [5000, 1],
      [777, 2049],
      [512, 512],
    ] as const) {
      expect(openAIHighDetailTokens(w, h)).toBeLessThanOrEqual(OPENAI_MAX_IMAGE_TOKENS);
    }
  });

  it("counts auto as high, an unknown size as the maximum (saying so), and a fixed rule as given", () => {
    expect(countImageTokens({ type: "image", url: "u", width: 1024, height: 1024 }).tokens).toBe(765);
    const unknown = countImageTokens({ type: "image", url: "u", detail: "high" });
    expect(unknown).toEqual({ tokens: 1445, assumption: expect.stringContaining("unknown size") });
    expect(countImageTokens({ type: "image", url: "u" }, { kind: "fixed", tokensPerImage: 576 })).toEqual({
      tokens: 576,
    });
  });
});

describe("image tokens by each OpenAI model's own rule (the images-and-vision guide's examples)", () => {
  const count = (model: string, width?: number, height?: number, detail?: "low" | "high") =>
    countImageTokens(
      {
        type: "image",
        url: "u",
        ...(width === undefined ? {} : { width, height }),
        ...(detail ? { detail } : {}),
      },
      { kind: "openai", model },
    );

  it("counts patches as the guide's steps do: 1024×1024 → 1024 patches, 1800×2400 → 1452 after scaling", () => {
    expect(openAIImagePatches(1024, 1024)).toBe(1024);
    expect(openAIImagePatches(1800, 2400)).toBe(1452);
    expect(openAIImagePatches(32, 33)).toBe(2);
    expect(openAIImagePatches(10_000, 10_000)).toBeLessThanOrEqual(1536);
  });

  it("multiplies patches by the model's multiplier, whatever the detail", () => {
    expect(count("gpt-4.1-mini", 1024, 1024)).toEqual({ tokens: 1659 }); // 1024 × 1.62 = 1658.88
    expect(count("gpt-4.1-mini-2025-04-14", 1024, 1024, "low")).toEqual({ tokens: 1659 });
    expect(count("gpt-4.1-nano", 1024, 1024)).toEqual({ tokens: 2520 }); // 1024 × 2.46 = 2519.04
    expect(count("o4-mini", 1800, 2400)).toEqual({ tokens: 2498 }); // 1452 × 1.72 = 2497.44
    expect(count("gpt-5-mini", 1024, 1024)).toEqual({ tokens: 1659 });
  });

  it("charges each tiles model its own base and tile cost", () => {
    expect(count("gpt-4o-mini", 1024, 1024)).toEqual({ tokens: 25_501 }); // 2833 + 4 × 5667
    expect(count("gpt-4o-mini-2024-07-18", 1024, 1024, "low")).toEqual({ tokens: 2833 });
    expect(count("gpt-4o", 1024, 1024)).toEqual({ tokens: 765 });
    expect(count("gpt-4o", 2048, 4096)).toEqual({ tokens: 1105 });
    expect(count("gpt-4.1", 1024, 1024)).toEqual({ tokens: 765 });
    expect(count("gpt-5", 1024, 1024)).toEqual({ tokens: 630 }); // 70 + 4 × 140
    expect(count("o1", 1024, 1024)).toEqual({ tokens: 675 }); // 75 + 4 × 150
    expect(count("o3", 1024, 1024, "low")).toEqual({ tokens: 75 });
    expect(count("openai/gpt-4o-mini", 512, 512)).toEqual({ tokens: 2833 + 5667 });
  });

  it("counts a model the table lacks by the costliest rule and says so; an unknown size by the rule's maximum", () => {
    const unknown = count("gpt-9-vision", 1024, 1024);
    expect(unknown.tokens).toBe(25_501);
    expect(unknown.assumption).toMatch(/gpt-9-vision is not in OpenAI's image-token table.*costliest/);
    expect(count("gpt-4.1-mini").tokens).toBe(Math.ceil(1536 * 1.62));
    expect(count("gpt-4o-mini").tokens).toBe(2833 + 8 * 5667);
    for (const model of ["gpt-4o", "gpt-4o-mini", "gpt-4.1-nano", "o4-mini", "gpt-5", "unknown-model"]) {
      for (const [w, h] of [
        [1, 5000],
        [5000, 1],
        [777, 2049],
        [4096, 4096],
      ] as const) {
        expect(count(model, w, h).tokens).toBeLessThanOrEqual(count(model).tokens);
      }
    }
  });

  it("gives each model its rule from its metadata: by name anywhere, the costliest on OpenAI for an unknown name", () => {
    const rule = (model: string, servedByOpenAI: boolean) =>
      resolveModelMetadata({ model, servedByOpenAI, imageInput: "pixels" }).imageTokens;
    expect(rule("gpt-4o-mini", true)).toEqual({ kind: "openai", model: "gpt-4o-mini" });
    expect(rule("gpt-4.1-mini", false)).toEqual({ kind: "openai", model: "gpt-4.1-mini" });
    expect(rule("gpt-9-vision", true)).toEqual({ kind: "openai", model: "gpt-9-vision" });
    // Off OpenAI, an unknown model keeps the GPT-4o rule as a stated assumption (the costliest would overflow
    // a local model's window with one image).
    const local = resolveModelMetadata({ model: "llava", servedByOpenAI: false, imageInput: "pixels" });
    expect(local.imageTokens).toBeUndefined();
    expect(local.assumptions).toContain(
      "image tokens of llava counted by OpenAI's rule; pass imageTokens if the server counts otherwise",
    );
  });
});
