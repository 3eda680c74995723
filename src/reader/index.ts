export type { ImageLimits } from "../schema/image-bytes.js";
export type { ReaderOverrides } from "./formats/registry.js";
export type {
  DocumentBlock,
  DocumentBlockKind,
  DocumentReader,
  ReaderInput,
  ReaderLimits,
  ReaderSkipCode,
  ReadFileResult,
} from "./formats/types.js";
export { ReaderSkipError } from "./formats/types.js";
export type { SkippedImage, SkippedImageCode } from "./image-guard.js";
export {
  findImageReferences,
  type ImageReference,
  type ReferencedImagesOptions,
  withReferencedImages,
} from "./image-references.js";
export { type DocumentListing, listDocuments, type ReadListedOptions } from "./list-documents.js";
export {
  type ReadDocumentsOptions,
  type ReadDocumentsResult,
  readDocuments,
  type SkipCode,
  type SkippedPath,
} from "./read-documents.js";
export type { WalkedFile } from "./walk-files.js";
