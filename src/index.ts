/**
 * agentstream: read any LLM agent's event stream, repair it, normalize it into one versioned event
 * model, validate it and write it out again. This is the public API, and only it: docs/api.md lists
 * every export (a test keeps the two equal). The CLI (cli/) and the helpers behind these are not
 * part of it; `agentstream/run` (Node) and `agentstream/testing` are the other two entries.
 */

// Reading
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
export { createRepairStage, type RepairOptions, type RepairStats } from "./stages/repair/create-repair-stage.ts";
export {
  createRedactionStage,
  createStreamRedactor,
  redactText,
  redactValue,
  RULES as redactionRules,
  type RedactionCounts,
  type RedactionKind,
  type RedactionRule,
  type RedactionStage,
  type StreamRedactor,
} from "./stages/redact/index.ts";

// The model and errors
export type {
  JsonObject,
  JsonValue,
  EventSource,
  EventBase,
  Usage,
  MessageRole,
  MessageKind,
  SessionStatus,
  SessionStartedEvent,
  SessionCompletedEvent,
  TurnStartedEvent,
  TurnCompletedEvent,
  MessageMeta,
  MessageStartedEvent,
  MessageDeltaEvent,
  MessageCompletedEvent,
  ToolKind,
  ToolStartedEvent,
  ToolInputDeltaEvent,
  ToolProgressEvent,
  ToolCompletedEvent,
  FileChange,
  FileChangedEvent,
  PlanItem,
  PlanUpdatedEvent,
  UsageEvent,
  MetricEvent,
  RateLimitEvent,
  RetryEvent,
  HeartbeatEvent,
  ErrorScope,
  ErrorEvent,
  NoticeEvent,
  TextEvent,
  RepairEvent,
  UnknownEvent,
  AgentEvent,
  AgentEventType,
  EventOf,
  AgentEventDraft,
} from "./model/events.ts";
export { MODEL_VERSION, EVENT_TYPES, assertNever } from "./model/events.ts";
export { LosslessInteger } from "./model/lossless-integer.ts";
export { AgentStreamError, formatIssue, type ErrorCode, type Issue, type IssueCode, type IssueSeverity } from "./errors.ts";
export { VERSION } from "./version.ts";

// Writing
export { formats, getFormat, type FormatDefinition, type FormatOption } from "./formats/index.ts";
export { createFormatWriter } from "./formats/writer.ts";
export type { EncoderOptions, RecordEncoder } from "./encoding/record-encoder.ts";
export { createFramer, type Framer, type FramerOptions, type RecordFraming, type SseFramingOptions } from "./framing/framer.ts";
export { stringifyRecord } from "./framing/stringify.ts";
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

// Validating
export { agentstreamSchema } from "./validation/agent-event-schema.ts";
export { validateEvent } from "./validation/validate-event.ts";
export { compileSchema } from "./validation/ajv.ts";
export type { FormatSpec, FormatValidator } from "./validation/format-spec.ts";
export { formatSpecs, getFormatSpec } from "./formats/index.ts";
export { checkSequence, createSequenceChecker, type SequenceChecker } from "./formats/agentstream/rules.ts";

// Summarising
export { createSummaryBuilder, type SessionSummary, type SummaryBuilder, type ToolCallStatus } from "./summary/index.ts";

// Rendering
export {
  createSanitizer,
  createTerminalRenderer,
  sanitizeForTerminal,
  type RenderMode,
  type RendererEndOptions,
  type RendererOptions,
  type SanitizeOptions,
  type TerminalRenderer,
  type TerminalSanitizer,
  type Verbosity,
} from "./views/index.ts";
