// A document's edit for the store tests (SQLite and PostgreSQL): its chunks from its texts, each with a vector
// derived from the text.
import { lexicalDocumentTerms } from "../analysis/lexical-tokens.js";
import { MetadataMode, TextNode } from "../schema/text-node.js";
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

/**
 * A file's edit, as the folder reader gives one: its source row and every chunk's metadata carry the file's path,
 * size and modification time.
 */
export function fileEdit(
  id: string,
  texts: readonly string[],
  { size, lastModifiedAt }: { size: number; lastModifiedAt: string },
): SourceEdit {
  const edit = sourceEdit(id, texts);
  Object.assign(edit.source as object, { size, lastModifiedAt });
  for (const chunk of edit.chunks) {
    const node = chunk.node as TextNode;
    chunk.node = new TextNode({
      id: node.id,
      text: node.text,
      metadata: { file_path: id, file_size: size, last_modified_at: lastModifiedAt },
    });
    // As the build writes them: the terms of its embed content (the file path is in it).
    chunk.terms = lexicalDocumentTerms(chunk.node.getContent(MetadataMode.EMBED));
  }
  return edit;
}
