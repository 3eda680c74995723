export { SentenceSplitter, type SentenceSplitterOptions } from "./sentence-splitter.js";
export { type SplitSentencesOptions, splitSentences } from "./sentences.js";
export {
  type SplitFunction,
  splitByCharacter,
  splitBySeparator,
  splitTextKeepSeparator,
} from "./split-functions.js";
export {
  DEFAULT_METADATA_FORMAT_LEN,
  TokenTextSplitter,
  type TokenTextSplitterOptions,
  truncateText,
} from "./token-text-splitter.js";
