/** A template split once into literal text and variable slots, so formatting is one pass. */
export type TemplateSegment = { literal: string } | { variable: string };

// LlamaIndex's variable pattern: `{name}` or `{a.b}`. Anything else in braces (JSON, code) is literal.
const variablePattern = /\{([a-zA-Z_][a-zA-Z0-9_]*(?:\.[a-zA-Z_][a-zA-Z0-9_]*)*)\}/g;

export function parseTemplate(template: string): TemplateSegment[] {
  const segments: TemplateSegment[] = [];
  let last = 0;
  for (const match of template.matchAll(variablePattern)) {
    const index = match.index ?? 0;
    if (index > last) segments.push({ literal: template.slice(last, index) });
    segments.push({ variable: match[1] as string });
    last = index + match[0].length;
  }
  if (last < template.length) segments.push({ literal: template.slice(last) });
  return segments;
}

export function variablesOf(segments: readonly TemplateSegment[]): string[] {
  const names: string[] = [];
  for (const segment of segments) {
    if ("variable" in segment && !names.includes(segment.variable)) names.push(segment.variable);
  }
  return names;
}

/**
 * Fills the slots. Values are inserted verbatim and never scanned again, so `$&`, `$$` or `{query_str}`
 * inside retrieved text stay exactly as they were. Slots without a value are returned in `missing`
 * and rendered literally.
 */
export function fillSegments(
  segments: readonly TemplateSegment[],
  values: Readonly<Record<string, string>>,
): { text: string; missing: string[] } {
  let text = "";
  const missing: string[] = [];
  for (const segment of segments) {
    if ("literal" in segment) {
      text += segment.literal;
    } else if (Object.hasOwn(values, segment.variable)) {
      text += values[segment.variable];
    } else {
      if (!missing.includes(segment.variable)) missing.push(segment.variable);
      text += `{${segment.variable}}`;
    }
  }
  return { text, missing };
}
