// The "best quality per dollar" mark: one rule, used by the table, the JSON and the report page alike.

/** What the mark weighs for one mode. */
export interface ModeValue {
  mode: string;
  /** The quality figure, between 0 and 1; undefined when the questions carry no labels to measure it. */
  quality: number | undefined;
  /** USD spent; undefined when prices are unknown. */
  dollars: number | undefined;
  /** Prompt plus completion tokens spent. */
  tokens: number;
}

/** The chosen mode and the cost unit it was chosen by. */
export interface BestMode {
  mode: string;
  /** `"dollars"` when every mode has a price, else `"tokens"` (offline, or no price known). */
  costUnit: "dollars" | "tokens";
  /** Quality per unit of cost (per USD or per 1,000 tokens); Infinity for quality that cost nothing. */
  qualityPerCost: number;
}

/**
 * Picks the mode with the most quality per dollar. When some mode has no price (or all cost $0, as offline
 * runs do), dollars cannot rank them and tokens (prompt + completion, per 1,000) stand in for cost. A mode
 * with no quality (0 or unmeasured) is never best. Quality at zero cost ranks above any paid quality; ties go
 * to the higher quality, then the cheaper mode, then the earlier mode.
 * @returns undefined when no mode has quality above 0
 */
export function bestQualityPerCost(values: readonly ModeValue[]): BestMode | undefined {
  const priced =
    values.every((value) => value.dollars !== undefined) && values.some((value) => value.dollars);
  const costUnit = priced ? "dollars" : "tokens";
  const costOf = (value: ModeValue) => (priced ? (value.dollars ?? 0) : value.tokens / 1000);
  let best: { value: ModeValue; ratio: number; cost: number } | undefined;
  for (const value of values) {
    if (value.quality === undefined || !(value.quality > 0)) continue;
    const cost = costOf(value);
    const ratio = cost === 0 ? Number.POSITIVE_INFINITY : value.quality / cost;
    const better =
      best === undefined ||
      ratio > best.ratio ||
      (ratio === best.ratio &&
        (value.quality > (best.value.quality ?? 0) ||
          (value.quality === best.value.quality && cost < best.cost)));
    if (better) best = { value, ratio, cost };
  }
  return best && { mode: best.value.mode, costUnit, qualityPerCost: best.ratio };
}
