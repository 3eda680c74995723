import {
  COSTLIEST_IMAGE_RULE,
  GPT_4O_IMAGE_RULE,
  type OpenAIImageRule,
  openAIImageRule,
} from "../llm/openai-image-rules.js";
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
  return OPENAI_IMAGE_TOKENS.base + OPENAI_IMAGE_TOKENS.perTile * openAIHighDetailTiles(width, height);
}

/** The 512-px tiles of the tile rule's scaled image (the same for every tiles model): 4 for 1024×1024. */
export function openAIHighDetailTiles(width: number, height: number): number {
  const { maxSide, shortSide, tile } = OPENAI_IMAGE_TOKENS;
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
  return Math.ceil(w / tile) * Math.ceil(h / tile);
}

/** An image's prompt tokens, and what was assumed to get them. */
export interface ImageTokenCount {
  tokens: number;
  /** Set when the count rests on an assumption (unknown size, detail `auto`, a model the table lacks). */
  assumption?: string;
}

// The most tiles a scaled image has: 768×2048, 2×4 tiles.
const MAX_TILES =
  Math.ceil(OPENAI_IMAGE_TOKENS.shortSide / OPENAI_IMAGE_TOKENS.tile) *
  Math.ceil(OPENAI_IMAGE_TOKENS.maxSide / OPENAI_IMAGE_TOKENS.tile);

// The patch rule: 32-px patches, at most this many (a larger image is scaled down to fit).
const PATCH = 32;
const MAX_PATCHES = 1536;

/**
 * The patch count of OpenAI's patch rule: ⌈w/32⌉·⌈h/32⌉; over 1,536, the image is scaled down so that whole
 * patches fit (the guide's steps), and the count is capped at 1,536.
 * @example openAIImagePatches(1024, 1024) // 1024
 * @example openAIImagePatches(1800, 2400) // 1452
 */
export function openAIImagePatches(width: number, height: number): number {
  const patches = Math.ceil(width / PATCH - 1e-9) * Math.ceil(height / PATCH - 1e-9);
  if (patches <= MAX_PATCHES) return patches;
  const shrink = Math.sqrt((PATCH * PATCH * MAX_PATCHES) / (width * height));
  // Then shrink a little more so the narrower fit is a whole number of patches.
  const ratio = Math.min(
    Math.floor((width * shrink) / PATCH) / (width / PATCH),
    Math.floor((height * shrink) / PATCH) / (height / PATCH),
  );
  const scaled = Math.ceil((width * ratio) / PATCH - 1e-9) * Math.ceil((height * ratio) / PATCH - 1e-9);
  return Math.min(scaled, MAX_PATCHES);
}

function maxTokens(rule: OpenAIImageRule): number {
  return rule.kind === "patches"
    ? Math.ceil(MAX_PATCHES * rule.multiplier)
    : rule.base + rule.perTile * MAX_TILES;
}

/**
 * The prompt tokens of one image under a rule. With OpenAI's rule, the model named in the rule picks its row of
 * OpenAI's table (tiles: base + per-tile cost, `detail: "low"` the base alone; patches: 32-px patches times the
 * model's multiplier, whatever the detail); no model means the GPT-4o family's; a model the table lacks is
 * counted by the costliest rule (gpt-4o-mini's), said in `assumption`. `detail: "auto"` (the default) counts as
 * `high`, the larger, and an image of unknown size as the rule's maximum.
 * @example countImageTokens({ type: "image", width: 1024, height: 1024 }, { kind: "openai", model: "gpt-4o-mini" }) // { tokens: 25501 }
 */
export function countImageTokens(
  image: ImageBlock,
  rule: ImageTokenRule = { kind: "openai" },
): ImageTokenCount {
  if (rule.kind === "fixed") return { tokens: rule.tokensPerImage };
  const known = rule.model === undefined ? GPT_4O_IMAGE_RULE : openAIImageRule(rule.model);
  const modelRule = known ?? COSTLIEST_IMAGE_RULE;
  const unknownModel =
    known === undefined
      ? `${rule.model} is not in OpenAI's image-token table: its images are counted by the costliest rule (gpt-4o-mini's); pass imageTokens to count otherwise`
      : undefined;
  const withAssumption = (tokens: number, assumption?: string): ImageTokenCount => {
    const said = [unknownModel, assumption].filter((line): line is string => line !== undefined).join("; ");
    return said === "" ? { tokens } : { tokens, assumption: said };
  };
  if (modelRule.kind === "tiles" && image.detail === "low") return withAssumption(modelRule.base);
  const { width, height } = image;
  if (width === undefined || height === undefined || !(width > 0 && height > 0)) {
    const most = maxTokens(modelRule);
    return withAssumption(
      most,
      `an image of unknown size counts as ${most} tokens (OpenAI's high-detail maximum)`,
    );
  }
  const tokens =
    modelRule.kind === "patches"
      ? Math.ceil(openAIImagePatches(width, height) * modelRule.multiplier - 1e-9)
      : modelRule.base + modelRule.perTile * openAIHighDetailTiles(width, height);
  return withAssumption(tokens);
}
