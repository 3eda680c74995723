import type { ImageTokenRule } from "../llm/types.js";
import type { ImageBlock } from "../schema/content-block.js";

/** OpenAI's published numbers for its vision models (GPT-4o family), "Calculating costs" in the vision guide. */
export const OPENAI_IMAGE_TOKENS = {
  /** Every `detail: "low"` image. */
  low: 85,
  /** Added to every high-detail image. */
  base: 85,
  /** Per 512-pixel tile of the scaled image. */
  perTile: 170,
  /** The image is first scaled to fit this square. */
  maxSide: 2048,
  /** Then its shortest side is scaled to this. */
  shortSide: 768,
  tile: 512,
} as const;

/** The most a high-detail image can cost by OpenAI's rule (768×2048 after scaling: 2×4 tiles): 1445. */
export const OPENAI_MAX_IMAGE_TOKENS =
  OPENAI_IMAGE_TOKENS.base +
  OPENAI_IMAGE_TOKENS.perTile *
    Math.ceil(OPENAI_IMAGE_TOKENS.shortSide / OPENAI_IMAGE_TOKENS.tile) *
    Math.ceil(OPENAI_IMAGE_TOKENS.maxSide / OPENAI_IMAGE_TOKENS.tile);

/**
 * OpenAI's high-detail rule: scale to fit 2048×2048 (keeping the aspect ratio), then scale so the shortest
 * side is at most 768 px, then 85 + 170 per 512-px tile. Images are only ever scaled down, as in every
 * published example (a 512×512 image is one tile: 255), so no image costs more than 1445.
 * @example openAIHighDetailTokens(1024, 1024) // 765
 * @example openAIHighDetailTokens(2048, 4096) // 1105
 */
export function openAIHighDetailTokens(width: number, height: number): number {
  const { maxSide, shortSide, tile, base, perTile } = OPENAI_IMAGE_TOKENS;
  let w = width;
  let h = height;
  if (w > maxSide || h > maxSide) {
    const ratio = Math.min(maxSide / w, maxSide / h);
    w *= ratio;
    h *= ratio;
  }
  const ratio = Math.min(1, shortSide / Math.min(w, h));
  w = Math.floor(w * ratio + 1e-9);
  h = Math.floor(h * ratio + 1e-9);
  return base + perTile * Math.ceil(w / tile) * Math.ceil(h / tile);
}

/** An image's prompt tokens, and what was assumed to get them. */
export interface ImageTokenCount {
  tokens: number;
  /** Set when the count rests on an assumption (unknown size, detail `auto`). */
  assumption?: string;
}

/**
 * The prompt tokens of one image under a rule. With OpenAI's rule, `detail: "auto"` (the default) is counted
 * as `high`, the larger of the two, and an image of unknown size as the high-detail maximum (1445).
 */
export function countImageTokens(
  image: ImageBlock,
  rule: ImageTokenRule = { kind: "openai" },
): ImageTokenCount {
  if (rule.kind === "fixed") return { tokens: rule.tokensPerImage };
  if (image.detail === "low") return { tokens: OPENAI_IMAGE_TOKENS.low };
  const { width, height } = image;
  if (width === undefined || height === undefined || !(width > 0 && height > 0)) {
    return {
      tokens: OPENAI_MAX_IMAGE_TOKENS,
      assumption: `an image of unknown size counts as ${OPENAI_MAX_IMAGE_TOKENS} tokens (OpenAI's high-detail maximum)`,
    };
  }
  return { tokens: openAIHighDetailTokens(width, height) };
}
