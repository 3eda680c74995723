import { describe, expect, it } from "vitest";
import { countImageTokens, OPENAI_MAX_IMAGE_TOKENS, openAIHighDetailTokens } from "./image-tokens.js";

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
