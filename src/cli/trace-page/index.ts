export type { AnswerPart, PageCitation } from "./cited-answer.js";
export {
  type PlanPageData,
  type PlanPageMode,
  type PlanPageRange,
  renderPlanPage,
} from "./render-plan-page.js";
export { renderTracePage } from "./render-trace-page.js";
export {
  buildTracePageData,
  type PageCall,
  type PageRetryWait,
  type PageSource,
  type TracePageData,
} from "./trace-page-data.js";
export { recordRetryWaits, writeAskReport, writePlanReport } from "./write-page.js";
