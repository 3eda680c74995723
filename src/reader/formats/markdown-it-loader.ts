import { createRequire } from "node:module";
import type { MarkdownIt } from "markdown-it";

/** markdown-it's factory and its footnote plugin. */
export interface MarkdownItModules {
  markdownIt: (preset: string, options: object) => MarkdownIt;
  // markdown-it-footnote ships no types: it is a plugin, `md.use(footnote)`.
  footnote: (md: MarkdownIt) => void;
}

// Loaded on the first Markdown parse, not when ragsynth is imported (markdown-it and its dependencies cost an
// import ~40 ms that a program which never reads Markdown should not pay). Both ship CommonJS builds. The CLI's
// bundle (dist/cli/cli.cjs) replaces this file's body with plain require() calls, which esbuild bundles
// (scripts/bundle-dist.mjs): there markdown-it runs from the CLI's V8 code cache instead of being compiled anew
// by every `ask` that reads a changed Markdown file.
const load = createRequire(import.meta.url);

/** Loads markdown-it and its footnote plugin. */
export function loadMarkdownIt(): MarkdownItModules {
  return {
    markdownIt: load("markdown-it") as MarkdownItModules["markdownIt"],
    footnote: load("markdown-it-footnote") as MarkdownItModules["footnote"],
  };
}
