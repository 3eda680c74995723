import { describe, expect, it } from "vitest";
import { foreignRegions } from "./html-foreign.js";

/** The skippable content of each region, as text. */
const contents = (html: string) =>
  foreignRegions(html).map(({ name, start, end }) => [name, html.slice(start, end)]);

describe("foreignRegions", () => {
  it("finds well-formed <svg> and <math> content, nested, with comments, CDATA, quoted `>` and a <title>", () => {
    const svg =
      '<g><path d="M0 0"/><text x="1">a &lt; b</text><!-- </svg> --><svg><circle r="2"/></svg>' +
      '<title>x </g> y</title><a title="1 > 0"><text>link</text></a><![CDATA[ </svg> ]]></g>';
    const html = `<p>A</p><svg viewBox="0 0 1 1">${svg}</svg><p>B</p><MATH><mi>x</mi><mo>=</mo></MATH>`;
    expect(contents(html)).toEqual([
      ["svg", svg],
      ["math", "<mi>x</mi><mo>=</mo>"],
    ]);
  });

  it("leaves to the parser what it would read differently: stray or misnested end tags, HTML inside, `<x/>` in an HTML integration point", () => {
    for (const html of [
      "<div><svg><g></div></svg>", // </div> closes the <div> outside
      "<svg><g><text></g></text></svg>", // misnested
      "<svg><foreignObject><p>HTML</p></foreignObject></svg>",
      "<p>a<svg><p>b</p></svg>", // <p> closes the <p> outside
      "<math><mi><mspace/>x</mi></math>", // <mspace/> stays open inside <mi>
      "<svg><g>", // never closed
      "<svg/><p>after</p>", // nothing inside
      "<svgx><p>not svg</p></svgx>",
    ])
      expect(contents(html), html).toEqual([]);
  });
});
