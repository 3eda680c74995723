export {
  type ReadDocumentsOptions,
  type ReadDocumentsResult,
  readDocuments,
  type SkipCode,
  type SkippedPath,
} from "./read-documents.js";
