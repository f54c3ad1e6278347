export {
  createEventReader,
  type EventReader,
  type EventReaderCallbacks,
  type EventStage,
  type ReadOptions,
  type RecordStats,
  type SessionBoundary,
  type HealthStats,
} from "./create-event-reader.ts";
export { AgentEventStream, readEvents, type EventSourceInput, type ReaderSummary } from "./read-events.ts";
