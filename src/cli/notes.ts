import type { RagsynthEvent } from "../events/events.js";
import { fallbackCount } from "../events/step-listing.js";
import type { LLMMetadata } from "../llm/types.js";
import type { ImageReport } from "../postprocessor/image-step.js";
import { plural } from "../util/format-numbers.js";

// The notes ask and plan print on stderr about what the run did with images and the optimizer's cutoffs.

/** Whether a query attaches images: with `--vision`, or offline (captions never leave the machine). */
export function attachesImages(vision: boolean, metadata: LLMMetadata): boolean {
  return vision || metadata.imageInput === "captions";
}

/** The notes `ask` prints about images: each one skipped (five unless verbose), how many went, how many did not. */
export function imageNotes(report: ImageReport, metadata: LLMMetadata, verbose: boolean): string[] {
  const notes: string[] = [];
  const shown = verbose ? report.skipped : report.skipped.slice(0, 5);
  for (const skipped of shown) {
    notes.push(`ragsynth: note: image ${skipped.src} (in ${skipped.nodeId}) skipped: ${skipped.reason}.`);
  }
  if (shown.length < report.skipped.length) {
    notes.push(
      `ragsynth: note: ${report.skipped.length - shown.length} more images skipped (-v lists them).`,
    );
  }
  if (report.skipped.length > 0)
    notes.push("ragsynth: note: the answer comes from the text of those chunks.");
  if (report.attached > 0 && metadata.imageInput === "pixels") {
    notes.push(
      `ragsynth: note: sent ${plural(report.attached, "local image")} to ${metadata.model} (--vision).`,
    );
  }
  // Said where images went before this release (OpenAI's vision models took them by default), not to text models.
  if (report.withheld > 0 && metadata.imageInput === "pixels") {
    notes.push(
      `ragsynth: note: ${plural(report.withheld, "image")} in the sources ${report.withheld === 1 ? "was" : "were"} not sent to the model; pass --vision to attach ${report.withheld === 1 ? "it" : "them"}.`,
    );
  }
  return notes;
}

/** A stderr note when the optimizer's threshold let nothing through in some chunks. */
export function optimizerNotes(events: readonly RagsynthEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.type !== "postprocess-end" || fallbackCount(event) === 0) return [];
    return [
      `ragsynth: note: in ${fallbackCount(event)} of ${event.nodesBefore} chunks no sentence passed the --optimizer cutoff; ` +
        "each kept its best sentence. Lower the threshold to keep more.",
    ];
  });
}
