import { describe, expect, it } from "vitest";
import type { CliIO } from "./io.js";
import { reportReadCounts } from "./read-report.js";

function capture(): { io: CliIO; text: () => string } {
  let written = "";
  const io = {
    stderr: {
      write: (chunk: string) => {
        written += chunk;
        return true;
      },
    },
  } as unknown as CliIO;
  return { io, text: () => written };
}

describe("reportReadCounts", () => {
  const counts = { formats: { markdown: 2 }, skipped: [] };

  it("says nothing for an ask whose walk passed nothing over", () => {
    const { io, text } = capture();
    reportReadCounts(counts, io, { verbose: false, always: false });
    expect(text()).toBe("");
  });

  it("notes that worker threads failed and the main thread read the files, with the threads' error", () => {
    const { io, text } = capture();
    reportReadCounts({ ...counts, threadsFailed: "Cannot find module split-worker.js" }, io, {
      verbose: false,
      always: false,
    });
    expect(text()).toBe(
      "ragsynth: note: no worker thread could read or split files (Cannot find module split-worker.js), so the main thread did; --threads 0 asks for that.\n",
    );
  });
});
