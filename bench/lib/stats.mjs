/** The median of a list of numbers (the mean of the two middle values for even lengths). */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Runs every entrant once per round, in a rotating order, for `runs` rounds, after `warmup` untimed
 * rounds. Interleaving keeps a noisy neighbour from landing on one entrant only, so the ratios of the
 * medians compare like with like. Entrants are `{ name, fn }` where `fn` is sync or async and returns
 * nothing (the sample is its wall time) or a number (the sample is that number, e.g. a latency measured
 * inside); returns `{ [name]: { median, samples } }` in milliseconds.
 */
export async function interleave(entrants, { runs = 5, warmup = 1 } = {}) {
  const samples = Object.fromEntries(entrants.map(({ name }) => [name, []]));
  for (let round = -warmup; round < runs; round++) {
    const offset = ((round % entrants.length) + entrants.length) % entrants.length;
    for (let i = 0; i < entrants.length; i++) {
      const { name, fn } = entrants[(i + offset) % entrants.length];
      const start = performance.now();
      const value = await fn();
      const elapsed = performance.now() - start;
      if (round >= 0) samples[name].push(typeof value === "number" ? value : elapsed);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, values]) => [name, { median: median(values), samples: values }]),
  );
}

/** `a / b`, or NaN when either side is missing. */
export function ratio(a, b) {
  if (
    typeof a !== "number" ||
    typeof b !== "number" ||
    !Number.isFinite(a) ||
    !Number.isFinite(b) ||
    b === 0
  ) {
    return Number.NaN;
  }
  return a / b;
}
