let segmenter: Intl.Segmenter | undefined;

/**
 * The shared English word segmenter (Unicode word boundaries, UAX #29), built on first use: constructing an
 * `Intl.Segmenter` loads ICU break-iterator data, which would otherwise cost every `import("ragsynth")`.
 */
export function wordSegmenter(): Intl.Segmenter {
  segmenter ??= new Intl.Segmenter("en", { granularity: "word" });
  return segmenter;
}
