/** Keywords OpenAI's strict structured outputs do not accept: a schema using them is sent with `strict: false`. */
const UNSUPPORTED = [
  "allOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "propertyNames",
  "unevaluatedProperties",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependentSchemas",
];

const NOT_STRICT = Symbol("not strict");
type Converted = unknown | typeof NOT_STRICT;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function nullable(schema: unknown): unknown {
  if (isRecord(schema) && Array.isArray(schema.anyOf)) {
    return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  }
  return { anyOf: [schema, { type: "null" }] };
}

function convert(node: unknown): Converted {
  if (Array.isArray(node)) {
    const items = node.map(convert);
    return items.includes(NOT_STRICT) ? NOT_STRICT : items;
  }
  if (!isRecord(node)) return node;
  if (UNSUPPORTED.some((keyword) => keyword in node)) return NOT_STRICT;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" || key === "required" || key === "additionalProperties") continue;
    // Keys whose values are schemas (or lists/maps of them); everything else (enum, const, description) is data.
    const holdsSchemas = ["items", "prefixItems", "anyOf", "$defs", "definitions"].includes(key);
    const converted = !holdsSchemas
      ? value
      : key === "$defs" || key === "definitions"
        ? convertMap(value)
        : convert(value);
    if (converted === NOT_STRICT) return NOT_STRICT;
    result[key] = converted;
  }
  const isObject = node.type === "object" || "properties" in node;
  if (!isObject) return result;
  const additional = node.additionalProperties;
  if (!isRecord(node.properties) || (additional !== undefined && additional !== false)) return NOT_STRICT;
  const required = new Set(Array.isArray(node.required) ? node.required.map(String) : []);
  const properties: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(node.properties)) {
    const converted = convert(property);
    if (converted === NOT_STRICT) return NOT_STRICT;
    properties[name] = required.has(name) ? converted : nullable(converted);
  }
  return { ...result, properties, required: Object.keys(properties), additionalProperties: false };
}

function convertMap(value: unknown): Converted {
  if (!isRecord(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(value)) {
    const converted = convert(schema);
    if (converted === NOT_STRICT) return NOT_STRICT;
    result[name] = converted;
  }
  return result;
}

/**
 * The JSON Schema in the form OpenAI's strict structured outputs require: every property listed in `required`
 * (optional ones made nullable, `anyOf [schema, {type: "null"}]`) and `additionalProperties: false` on every
 * object. Undefined when the schema cannot be made strict (records, `oneOf`, `allOf`, …): send it with
 * `strict: false` then. A `null` answered for an optional property is turned back into "absent" by
 * `parseObject` before validation.
 * @example toStrictJsonSchema(z.toJSONSchema(z.object({ a: z.string(), b: z.string().optional() })))
 */
export function toStrictJsonSchema(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  const converted = convert(schema);
  return converted === NOT_STRICT || !isRecord(converted) ? undefined : converted;
}
