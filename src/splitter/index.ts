export { BlockSplitter, type BlockSplitterOptions } from "./block-splitter.js";
export { SentenceSplitter, type SentenceSplitterOptions } from "./sentence-splitter.js";
export { TokenTextSplitter, type TokenTextSplitterOptions } from "./token-text-splitter.js";
