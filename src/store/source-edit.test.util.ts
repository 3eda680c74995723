// A document's edit for the store tests (SQLite and PostgreSQL): its chunks from its texts, each with a vector
// derived from the text.
import { lexicalDocumentTerms } from "../analysis/lexical-tokens.js";
import { TextNode } from "../schema/text-node.js";
import type { SourceEdit } from "./index-store.js";

export function sourceEdit(id: string, texts: readonly string[]): SourceEdit {
  return {
    source: { id, contentHash: `hash-of-${texts.join("|")}` },
    chunks: texts.map((text, index) => ({
      node: new TextNode({ id: `${id}#${index}`, text }),
      contentHash: `chunk-${text}`,
      terms: lexicalDocumentTerms(text),
      embedding: Float32Array.from([text.length, index + 1]),
      holdsImage: false,
    })),
  };
}
