import type { JsonSchemaFormat } from "../llm/types.js";

/** True for LlamaIndex's `StructuredRefineResponse`, by name or by its two properties. @internal */
export function isStructuredRefineFormat(format: JsonSchemaFormat): boolean {
  if (format.name === "StructuredRefineResponse") return true;
  const properties = asRecord(format.schema.properties);
  return properties !== undefined && "query_satisfied" in properties && "answer" in properties;
}

/**
 * The JSON text of an extractive answer shaped by a schema. Structured refine gives
 * `{"query_satisfied": …, "answer": …}` in that order. Other schemas are filled best effort: strings get
 * the answer, booleans `querySatisfied`, string arrays the sentences, numbers `0`, enums and consts
 * their first value, objects recurse; other shapes get `null`.
 * @internal
 */
export function renderStructuredAnswer(
  format: JsonSchemaFormat,
  answer: string,
  sentences: string[],
  querySatisfied: boolean,
): string {
  if (isStructuredRefineFormat(format)) {
    return JSON.stringify({ query_satisfied: querySatisfied, answer });
  }
  return JSON.stringify(fill(format.schema, { answer, sentences, querySatisfied }, 0));
}

interface Fillers {
  answer: string;
  sentences: string[];
  querySatisfied: boolean;
}

function fill(schema: unknown, fillers: Fillers, depth: number): unknown {
  const node = asRecord(schema);
  if (node === undefined || depth > 16) return fillers.answer;
  if ("const" in node) return node.const;
  if (Array.isArray(node.enum)) return node.enum[0] ?? null;
  const branches = node.anyOf ?? node.oneOf ?? node.allOf;
  if (Array.isArray(branches) && branches.length > 0) return fill(branches[0], fillers, depth + 1);
  const type = Array.isArray(node.type) ? node.type.find((name) => name !== "null") : node.type;
  switch (type) {
    case "string":
      return fillers.answer;
    case "boolean":
      return fillers.querySatisfied;
    case "number":
    case "integer":
      return 0;
    case "null":
      return null;
    case "array": {
      const item = fill(node.items, fillers, depth + 1);
      return typeof item === "string" ? [...fillers.sentences] : [];
    }
    case "object":
      return Object.fromEntries(
        Object.entries(asRecord(node.properties) ?? {}).map(([key, value]) => [
          key,
          fill(value, fillers, depth + 1),
        ]),
      );
    default:
      return asRecord(node.properties)
        ? fill({ ...node, type: "object" }, fillers, depth + 1)
        : fillers.answer;
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
