import type { RagsynthEvent } from "../events/events.js";
import { fallbackCount } from "../events/step-listing.js";
import type { LLMMetadata } from "../llm/types.js";
import type { ImageReport } from "../postprocessor/image-step.js";
import type { SkippedImage } from "../reader/image-guard.js";
import { plural } from "../util/format-numbers.js";

// The notes ask and plan print on stderr about what the run did with images and the optimizer's cutoffs.

/** Whether a query attaches images: with `--vision`, or offline (captions never leave the machine). */
export function attachesImages(vision: boolean, metadata: LLMMetadata): boolean {
  return vision || metadata.imageInput === "captions";
}

/**
 * The notes `ask` prints about images: each image skipped (five unless verbose, then a count), except remote ones,
 * which are counted on one line with the first named (READMEs carry a row of badges, and a line each buried the
 * answer); then how many went and how many did not. A skip for any other reason points at something to look at in
 * the documents (a link out of the folder, a missing file), so those keep a line each.
 */
export function imageNotes(report: ImageReport, metadata: LLMMetadata, verbose: boolean): string[] {
  const notes: string[] = [];
  const remote = report.skipped.filter((skipped) => skipped.code === "remote");
  const others = verbose ? report.skipped : report.skipped.filter((skipped) => skipped.code !== "remote");
  const shown = verbose ? others : others.slice(0, 5);
  for (const skipped of shown) notes.push(skippedNote(skipped));
  if (shown.length < others.length) {
    notes.push(`ragsynth: note: ${others.length - shown.length} more images skipped (-v lists them).`);
  }
  const [first] = remote;
  if (!verbose && first && remote.length === 1) notes.push(skippedNote(first));
  if (!verbose && first && remote.length > 1) {
    notes.push(
      `ragsynth: note: ${remote.length} images skipped: ${cliReason(first)} (the first: ${first.src} in ${first.nodeId}; -v lists them).`,
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

function skippedNote(skipped: SkippedImage): string {
  return `ragsynth: note: image ${skipped.src} (in ${skipped.nodeId}) skipped: ${cliReason(skipped)}.`;
}

// The guard's reason for a remote image names the library's `remote` option, which the CLI does not offer.
function cliReason(skipped: SkippedImage): string {
  return skipped.code === "remote"
    ? "a remote image (the CLI neither fetches nor sends remote images)"
    : skipped.reason;
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
