/**
 * What an image costs each of OpenAI's vision models, from OpenAI's images-and-vision guide ("Calculating costs"):
 * most models cut the scaled image into 512-px tiles and charge a base plus a cost per tile (`detail: "low"`: the
 * base alone); the mini/nano models of the GPT-4.1 generation on, and o4-mini, count 32-px patches (at most 1,536)
 * times a per-model multiplier, whatever the detail.
 */
export type OpenAIImageRule =
  | { kind: "tiles"; base: number; perTile: number }
  | { kind: "patches"; multiplier: number };

/** The guide's table, most specific names first (a model id is matched by its start, after any `provider/`). */
const RULES: ReadonlyArray<readonly [prefix: string, rule: OpenAIImageRule]> = [
  ["gpt-4o-mini", { kind: "tiles", base: 2833, perTile: 5667 }],
  ["gpt-4.1-mini", { kind: "patches", multiplier: 1.62 }],
  ["gpt-4.1-nano", { kind: "patches", multiplier: 2.46 }],
  ["gpt-5-mini", { kind: "patches", multiplier: 1.62 }],
  ["gpt-5-nano", { kind: "patches", multiplier: 2.46 }],
  ["o4-mini", { kind: "patches", multiplier: 1.72 }],
  ["gpt-5", { kind: "tiles", base: 70, perTile: 140 }],
  ["gpt-4o", { kind: "tiles", base: 85, perTile: 170 }],
  ["chatgpt-4o", { kind: "tiles", base: 85, perTile: 170 }],
  ["gpt-4.1", { kind: "tiles", base: 85, perTile: 170 }],
  ["gpt-4.5", { kind: "tiles", base: 85, perTile: 170 }],
  ["gpt-4-turbo", { kind: "tiles", base: 85, perTile: 170 }],
  ["o1", { kind: "tiles", base: 75, perTile: 150 }],
  ["o3", { kind: "tiles", base: 75, perTile: 150 }],
  ["computer-use-preview", { kind: "tiles", base: 65, perTile: 129 }],
];

/** The GPT-4o family's rule: the one used when no model is named. */
export const GPT_4O_IMAGE_RULE: OpenAIImageRule = { kind: "tiles", base: 85, perTile: 170 };

/** The costliest rule of the table (gpt-4o-mini's tiles): what a model the table lacks is counted by. */
export const COSTLIEST_IMAGE_RULE: OpenAIImageRule = { kind: "tiles", base: 2833, perTile: 5667 };

/** The table entry that prices `model`'s images (`gpt-4o-mini` for `gpt-4o-mini-2024-07-18`), or undefined. */
export function openAIImageRuleName(model: string): string | undefined {
  const id = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  return RULES.find(
    ([prefix]) => id === prefix || id.startsWith(`${prefix}-`) || id.startsWith(`${prefix}:`),
  )?.[0];
}

/** `model`'s image rule from the table, or undefined for a model it does not know. */
export function openAIImageRule(model: string): OpenAIImageRule | undefined {
  const name = openAIImageRuleName(model);
  return RULES.find(([prefix]) => prefix === name)?.[1];
}
