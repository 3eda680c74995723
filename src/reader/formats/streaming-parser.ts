import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Handler, Parser, ParserOptions } from "htmlparser2";

// htmlparser2's streaming parser, for the HTML reader (html-blocks.ts) and the readers of XML parts (PPTX, XLSX,
// OpenDocument): loaded once, lazily.

type ParserClass = new (handlers: Partial<Handler>, options: ParserOptions) => Parser;
let parserClass: ParserClass | undefined;
const load = createRequire(import.meta.url);

/**
 * htmlparser2's streaming Parser, loaded on the first HTML, DOCX, PPTX, XLSX or OpenDocument file, so a folder of
 * Markdown never pays for it. Only its Parser module: the package's entry point also loads its DOM handler, DOM utilities, feed reader and
 * a second copy of the entity tables (~30 ms of CPU a process, measured). That module is found beside the entry
 * point (the package exports no deeper path); were it ever missing, the entry point is used. CommonJS through
 * `require`, which the ES build and the CLI's CommonJS bundle (no `import()` there) both have.
 */
export function htmlParser(): ParserClass {
  if (parserClass !== undefined) return parserClass;
  let parserModule: { Parser: ParserClass };
  try {
    parserModule = load(join(dirname(load.resolve("htmlparser2")), "Parser.js"));
  } catch {
    parserModule = load("htmlparser2");
  }
  parserClass = parserModule.Parser;
  return parserClass;
}

/** Walks an XML part (an OOXML or OpenDocument part) with `handlers`: htmlparser2 in XML mode, entities decoded. */
export function walkXml(xml: string, handlers: Partial<Handler>): void {
  const Parser = htmlParser();
  new Parser(handlers, { xmlMode: true, decodeEntities: true }).end(xml);
}
