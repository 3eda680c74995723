import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

/** Which metadata a node's content includes, as in LlamaIndex. */
export enum MetadataMode {
  /** Every metadata key. */
  ALL = "all",
  /** All keys except `excludedEmbedMetadataKeys`: what an embedder sees. */
  EMBED = "embed",
  /** All keys except `excludedLlmMetadataKeys`: what the LLM sees. */
  LLM = "llm",
  /** The text alone. */
  NONE = "none",
}

export type Metadata = Record<string, unknown>;

/** The fields of a {@link TextNode}; only `text` is required. */
export interface TextNodeInit {
  /** @default a random UUID */
  id?: string;
  text: string;
  /** @default {} */
  metadata?: Metadata;
  /** Metadata keys the LLM never sees. @default [] */
  excludedLlmMetadataKeys?: string[];
  /** Metadata keys never embedded. @default [] */
  excludedEmbedMetadataKeys?: string[];
}

/**
 * A piece of text with metadata: the unit that is retrieved, packed into prompts and cited as a source.
 * Treat nodes as immutable; ragsynth never changes a node it is given and returns new ones instead.
 */
export class TextNode {
  readonly id: string;
  readonly text: string;
  readonly metadata: Metadata;
  readonly excludedLlmMetadataKeys: string[];
  readonly excludedEmbedMetadataKeys: string[];

  constructor(init: TextNodeInit) {
    const {
      id = crypto.randomUUID(),
      text,
      metadata = {},
      excludedLlmMetadataKeys = [],
      excludedEmbedMetadataKeys = [],
    } = optionsOf(
      "init",
      init,
      "{ text, id?, metadata?, excludedLlmMetadataKeys?, excludedEmbedMetadataKeys? }",
    );
    if (typeof text !== "string") {
      throw new InvalidArgumentError({
        parameter: "text",
        value: text,
        expected: "be a string",
        hint: "Convert the node's content to text before building a TextNode.",
      });
    }
    if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
      throw new InvalidArgumentError({
        parameter: "metadata",
        value: metadata,
        expected: "be an object of keys and values",
      });
    }
    for (const [parameter, keys] of [
      ["excludedLlmMetadataKeys", excludedLlmMetadataKeys],
      ["excludedEmbedMetadataKeys", excludedEmbedMetadataKeys],
    ] as const) {
      if (!Array.isArray(keys) || keys.some((key) => typeof key !== "string")) {
        throw new InvalidArgumentError({ parameter, value: keys, expected: "be an array of metadata keys" });
      }
    }
    this.id = id;
    this.text = text;
    this.metadata = metadata;
    this.excludedLlmMetadataKeys = excludedLlmMetadataKeys;
    this.excludedEmbedMetadataKeys = excludedEmbedMetadataKeys;
  }

  /** The metadata as `"key: value"` lines joined by `"\n"`, leaving out the keys the mode excludes. */
  getMetadataStr(mode: MetadataMode = MetadataMode.ALL): string {
    if (mode === MetadataMode.NONE) return "";
    const excluded =
      mode === MetadataMode.LLM
        ? this.excludedLlmMetadataKeys
        : mode === MetadataMode.EMBED
          ? this.excludedEmbedMetadataKeys
          : [];
    const lines: string[] = [];
    for (const [key, value] of Object.entries(this.metadata)) {
      if (excluded.includes(key)) continue;
      lines.push(`${key}: ${formatMetadataValue(value)}`);
    }
    return lines.join("\n");
  }

  /**
   * The text as LlamaIndex renders it: the metadata lines, a blank line, then the text; just the text
   * when there is no metadata to show.
   * @example new TextNode({ text: "a", metadata: { k: 0 } }).getContent(MetadataMode.LLM) // "k: 0\n\na"
   */
  getContent(mode: MetadataMode = MetadataMode.NONE): string {
    const metadataStr = this.getMetadataStr(mode);
    return metadataStr === "" ? this.text : `${metadataStr}\n\n${this.text}`;
  }

  /** A copy with some fields replaced. */
  with(changes: Partial<TextNodeInit>): TextNode {
    return new TextNode({
      id: this.id,
      text: this.text,
      metadata: this.metadata,
      excludedLlmMetadataKeys: this.excludedLlmMetadataKeys,
      excludedEmbedMetadataKeys: this.excludedEmbedMetadataKeys,
      ...changes,
    });
  }

  toJSON(): Required<TextNodeInit> {
    return {
      id: this.id,
      text: this.text,
      metadata: this.metadata,
      excludedLlmMetadataKeys: this.excludedLlmMetadataKeys,
      excludedEmbedMetadataKeys: this.excludedEmbedMetadataKeys,
    };
  }
}

function formatMetadataValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}

/** A retrieved node and its similarity score, when the retriever gives one. */
export interface NodeWithScore {
  node: TextNode;
  score?: number;
}
