export { createSummaryBuilder, type SessionSummary, type SummaryBuilder, type ToolCallStatus } from "./summarize.ts";
