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
  /**
   * The reader that made the document's text (`markdown@1`: its format and version), when the document carried
   * `reader` (documents from `readDocuments` do): a file read by another reader counts as changed.
   */
  reader?: string;
  /** Ids of the nodes split from this document. */
  nodeIds: string[];
}
