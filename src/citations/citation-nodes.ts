import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { MetadataMode, type NodeWithScore } from "../schema/text-node.js";
import type { SentenceSplitter } from "../splitter/sentence-splitter.js";
import { type CitationSource, locate } from "./citation-source.js";

/** What {@link createCitationNodes} returns. */
export interface CitationNodes {
  /** One node per piece, its text `Source N:\n<piece>\n`, with the retrieved node's metadata and score. */
  nodes: NodeWithScore[];
  /** The same pieces, numbered from 1, with the node they came from and where in it. */
  sources: CitationSource[];
}

/**
 * Cuts retrieved nodes into numbered citation pieces, as LlamaIndex's `CitationQueryEngine._create_citation_nodes`:
 * each node's text (metadata excluded, LlamaIndex's `MetadataMode.NONE`) is split with `splitter`, and piece N
 * becomes a node whose text is `Source N:\n<piece>\n`. Numbering continues across nodes. The labels are part of the
 * node text, so the budget counts them like any other context.
 * @param firstNumber the number of the first piece. @default 1
 */
export function createCitationNodes({
  nodes,
  splitter,
  firstNumber = 1,
}: {
  /** The retrieved (and postprocessed) nodes, in reading order. */
  nodes: readonly NodeWithScore[];
  /** Cuts each node's text into pieces (a `SentenceSplitter` of `citationChunkSize`/`citationChunkOverlap`). */
  splitter: Pick<SentenceSplitter, "splitText">;
  firstNumber?: number;
}): CitationNodes {
  if (!Array.isArray(nodes)) {
    throw new InvalidArgumentError({
      parameter: "nodes",
      value: nodes,
      expected: "be an array of NodeWithScore",
    });
  }
  const out: CitationNodes = { nodes: [], sources: [] };
  for (const retrieved of nodes) {
    const text = retrieved.node.getContent(MetadataMode.NONE);
    let cursor = 0;
    for (const piece of splitter.splitText(text)) {
      const number = firstNumber + out.sources.length;
      // Pieces come in order and overlap a little, so search from a bit before the previous piece's end.
      let start = text.indexOf(piece, Math.max(0, cursor - piece.length));
      if (start < 0) start = text.indexOf(piece);
      const range = start < 0 ? [undefined, undefined] : [start, start + piece.length];
      if (start >= 0) cursor = start + piece.length;
      const node = retrieved.node.with({
        id: `${retrieved.node.id}#source-${number}`,
        text: `Source ${number}:\n${piece}\n`,
      });
      out.nodes.push(retrieved.score === undefined ? { node } : { node, score: retrieved.score });
      out.sources.push({
        number,
        text: piece,
        node: retrieved,
        location: locate(retrieved, range[0], range[1]),
      });
    }
  }
  return out;
}
