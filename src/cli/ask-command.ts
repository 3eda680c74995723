import { formatCitationNotes } from "../citations/citation-notes.js";
import type { CitationResponse } from "../citations/citation-query-engine.js";
import { citationSourceRows } from "../citations/citation-source.js";
import { citationsToJSON } from "../citations/citations-to-json.js";
import { llmCitationJudge } from "../eval/llm-citation-judge.js";
import { createEventLog, eventToJSON, phaseTimings } from "../events/event-log.js";
import type { RagsynthEvent } from "../events/events.js";
import { renderStepListing, summaryLine } from "../events/step-listing.js";
import { folderIndexSaved } from "../index-store/folder-index.js";
import { questionEngine } from "../question-run/question-engine.js";
import { ImageNode } from "../schema/image-node.js";
import { sourceToJSON } from "../schema/node-source.js";
import { renderSources } from "../schema/render-sources.js";
import type { SynthesisResponse } from "../synthesizer/types.js";
import type { AskOptions } from "./command-options.js";
import { type CommandContext, writeJSON } from "./io.js";
import { chooseJudge } from "./models.js";
import { imageNotes, optimizerNotes } from "./notes.js";
import { chooseModels, openRetrieval, progressFromEvents, queryCommand } from "./pipeline.js";

import { recordRetryWaits, writeAskReport } from "./trace-page/index.js";
import { EXIT_OK } from "./usage-error.js";

/** `ragsynth ask`: retrieve, postprocess, synthesize; print the answer (streamed), sources and a summary. */
export async function runAsk(options: AskOptions, context: CommandContext): Promise<number> {
  const { io, signal } = context;
  const started = performance.now();
  return queryCommand(options, io, async (progress, style) => {
    const log = createEventLog();
    const retries = recordRetryWaits(log);
    // Built once, before the index, so a missing API key fails at once.
    const models = chooseModels(options, io, options.report ? { onRetry: retries.onRetry } : {});
    const { llm } = models;
    const citationJudge = chooseJudge(options, io.env)?.create();
    const { opened, query, promptHelper } = await openRetrieval(options, models, context, progress, {
      // A question wants its answer now: from what another process building the index has written so far.
      whileAnotherBuilds: "answer-as-is",
    });
    const imageReport = query.images;
    const showProgress = progressFromEvents(progress);
    let answering = false;
    const onEvent = (event: RagsynthEvent) => {
      log.handler(event);
      if (event.type === "warning") {
        progress.clear();
        io.stderr.write(`ragsynth: warning: ${event.message}\n`);
      }
      if (!answering) showProgress(event);
    };
    const engine = questionEngine({
      llm,
      query,
      mode: options.mode,
      promptHelper,
      concurrency: options.concurrency,
      citations: options.citations,
      judge: citationJudge ? llmCitationJudge({ judge: citationJudge }) : undefined,
      onEvent,
    });

    const stream = !options.json && (options.stream ?? io.stdoutIsTTY);
    let response: SynthesisResponse | CitationResponse;
    if (stream) {
      const streaming = await engine.stream({ query: options.query, signal });
      let wrote = false;
      for await (const delta of streaming.textStream) {
        if (!answering) {
          answering = true;
          progress.clear();
        }
        io.stdout.write(delta);
        wrote = delta !== "" || wrote;
      }
      response = await streaming.response;
      progress.clear();
      if (wrote) io.stdout.write("\n");
    } else {
      response = await engine.query({ query: options.query, signal });
      progress.clear();
      if (!options.json && response.response !== "") io.stdout.write(`${response.response}\n`);
    }
    const citations = (response as Partial<CitationResponse>).citations;
    const totalMs = performance.now() - started;
    for (const note of optimizerNotes(log.events)) io.stderr.write(`${note}\n`);
    const images = response.sourceNodes.filter(({ node }) => ImageNode.isInstance(node)).length;
    if (images > 0 && llm.metadata.imageInput === "captions") {
      io.stderr.write(
        `ragsynth: note: ${images} image${images === 1 ? " was" : "s were"} read by ${images === 1 ? "its" : "their"} alt text and captions only: the offline answerer cannot see pixels.\n`,
      );
    }
    if (imageReport) {
      for (const note of imageNotes(imageReport, llm.metadata, options.verbose)) io.stderr.write(`${note}\n`);
    }
    if (options.report) {
      await writeAskReport(options.report, {
        redact: io.redact,
        log,
        waits: retries.waits,
        response,
        query: options.query,
        model: llm.metadata.model,
        contextWindow: promptHelper.contextWindow,
        numOutput: promptHelper.numOutput,
      });
      io.stderr.write(`ragsynth: wrote the trace page to ${options.report}\n`);
    }

    if (options.json) {
      // Before the JSON: a failed write makes the error the one JSON document on stdout.
      await folderIndexSaved(opened, progress);
      writeJSON(io, {
        command: "ask",
        query: options.query,
        mode: options.mode,
        answer: response.response,
        sources: response.sourceNodes.map(sourceToJSON),
        images: {
          count: images,
          readAs: images > 0 ? (llm.metadata.imageInput ?? null) : null,
          skipped: imageReport?.skipped ?? [],
          withheld: imageReport?.withheld ?? 0,
        },
        ...(citations ? { citations: citationsToJSON(citations) } : {}),
        ...(response.assumptions ? { assumptions: response.assumptions } : {}),
        usage: response.usage,
        timings: {
          ...phaseTimings(log.events),
          indexMs: Math.round(opened.stats.durationMs),
          totalMs: Math.round(totalMs),
        },
        llm: {
          model: llm.metadata.model,
          kind: llm.metadata.kind ?? "generative",
          offline: models.llmChoice.label === "extractive",
          contextWindow: promptHelper.contextWindow,
          numOutput: promptHelper.numOutput,
          tokenizer: promptHelper.tokenizer.name,
        },
        embed: { id: opened.embedModel.id },
        index: opened.stats,
        events: log.events.map(eventToJSON),
      });
      return EXIT_OK;
    }
    io.stdout.write(
      `\n${renderSources(citations ? citationSourceRows(citations.sources) : response.sourceNodes, style, io.columns)}`,
    );
    if (citations) io.stdout.write(formatCitationNotes(citations, style));
    if (options.trace) io.stdout.write(`\n${renderStepListing(log.events, style)}`);
    io.stdout.write(
      `\n${style.dim(summaryLine({ mode: options.mode, usage: response.usage, wallMs: totalMs, model: llm.metadata.model }))}\n`,
    );
    await folderIndexSaved(opened, progress);
    return EXIT_OK;
  });
}
