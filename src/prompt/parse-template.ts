/** A template split once into literal text and variable slots, so formatting is one pass. */
export type TemplateSegment = { literal: string } | { variable: string };

// Python's escapes `{{` and `}}` (literal braces, as in LlamaIndex's templates), then LlamaIndex's variable
// pattern: `{name}` or `{a.b}`. Anything else in braces (JSON, code) is literal.
const tokenPattern = /\{\{|\}\}|\{([a-zA-Z_][a-zA-Z0-9_]*(?:\.[a-zA-Z_][a-zA-Z0-9_]*)*)\}/g;

/**
 * Splits a template into literal text and `{variable}` slots. As in Python's `str.format`, `{{` and `}}` are
 * literal `{` and `}` (so `{{answer}}` is the text `{answer}`, and prompts copied from LlamaIndex work). A
 * template with no `{{` keeps `}}` as written, so a JSON example such as `{"a": {"b": 1}}` needs no escaping;
 * braces around anything that is not a name (JSON, code) stay as they are.
 */
export function parseTemplate(template: string): TemplateSegment[] {
  const segments: TemplateSegment[] = [];
  const escapes = template.includes("{{");
  let literal = "";
  let last = 0;
  for (const match of template.matchAll(tokenPattern)) {
    const index = match.index ?? 0;
    literal += template.slice(last, index);
    last = index + match[0].length;
    if (match[1] === undefined) {
      literal += escapes || match[0] === "{{" ? match[0][0] : match[0];
      continue;
    }
    if (literal !== "") segments.push({ literal });
    literal = "";
    segments.push({ variable: match[1] });
  }
  literal += template.slice(last);
  if (literal !== "") segments.push({ literal });
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
