/** One source document of an index: what its content was when it was indexed, and its nodes. */
export interface IndexSource {
  /** The document's id (its `file_path` for documents from `readDocuments`). */
  id: string;
  /** SHA-256 of the document's text. */
  contentHash: string;
  /** The file's size in bytes, when the document carried `file_size`. */
  size?: number;
  /** The file's modification time, when the document carried `last_modified_at`. */
  lastModifiedAt?: string;
  /** Ids of the nodes split from this document. */
  nodeIds: string[];
}
