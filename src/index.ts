/**
 * agentstream: read any LLM agent's event stream, repair it, normalize it into one versioned event
 * model, validate it and write it out again. The CLI is in cli/ and is not part of this surface.
 */
export type * from "./model/events.ts";
export { MODEL_VERSION, EVENT_TYPES, assertNever } from "./model/events.ts";
export { addUsage, emptyUsage, usageFrom, isUsageEmpty } from "./model/usage.ts";
export { LosslessInteger, isJsonObject } from "./model/lossless-integer.ts";
export { stringifyRecord } from "./framing/stringify.ts";
export { AgentStreamError, formatIssue, type ErrorCode, type Issue, type IssueCode, type IssueSeverity } from "./errors.ts";
export {
  createNdjsonParser,
  type Framing,
  type FramingStats,
  type InputRecord,
  type JsonRecord,
  type NdjsonCallbacks,
  type NdjsonOptions,
  type NdjsonParser,
  type TextRecord,
} from "./framing/ndjson/create-ndjson-parser.ts";
export {
  dialects,
  detectDialect,
  getDialect,
  type Dialect,
  type DialectDecoder,
  type DecodeContext,
  type DecodeProblem,
  type SessionOpening,
} from "./dialects.ts";
export { createSseDecoder, type SseCallbacks, type SseDecoder, type SseEvent } from "./framing/create-sse-decoder.ts";
export {
  createEventReader,
  readEvents,
  AgentEventStream,
  type EventReader,
  type EventReaderCallbacks,
  type EventStage,
  type ReadOptions,
  type RecordStats,
  type SessionBoundary,
  type HealthStats,
  type EventSourceInput,
  type ReaderSummary,
} from "./pipeline/index.ts";
export { agentstreamSchema } from "./validation/agent-event-schema.ts";
export { validateEvent } from "./validation/validate-event.ts";
export type { FormatSpec, FormatValidator } from "./validation/format-spec.ts";
export { checkSequence, createSequenceChecker, type SequenceChecker } from "./formats/agentstream/rules.ts";
export { formats, getFormat, formatSpecs, getFormatSpec, type FormatDefinition, type FormatOption } from "./formats/index.ts";
export { createFormatWriter } from "./formats/writer.ts";
export type { EncoderOptions, RecordEncoder } from "./encoding/record-encoder.ts";
export { createFramer, type Framer, type FramerOptions, type RecordFraming, type SseFramingOptions } from "./framing/framer.ts";
export {
  toLine,
  toLines,
  outputFormats,
  getOutputFormat,
  type EventWriter,
  type OutputFormat,
  type WriterOptions,
} from "./output-formats.ts";
export { makeEvent, validateLine, type EventFields } from "./emitter.ts";
export { createSummaryBuilder, type SessionSummary, type SummaryBuilder } from "./summary/index.ts";
export {
  createSanitizer,
  createTerminalRenderer,
  sanitizeForTerminal,
  type RenderMode,
  type RendererOptions,
  type SanitizeOptions,
  type TerminalRenderer,
  type TerminalSanitizer,
  type Verbosity,
} from "./views/index.ts";
export { createRepairStage, type RepairOptions, type RepairStats } from "./stages/repair/create-repair-stage.ts";
export {
  createRedactionStage,
  createStreamRedactor,
  isSecretKey,
  redactionMarker,
  redactText,
  redactValue,
  RULES as redactionRules,
  type RedactionCounts,
  type RedactionKind,
  type RedactionRule,
  type RedactionStage,
  type StreamRedactor,
} from "./stages/redact/index.ts";
export { VERSION } from "./version.ts";
