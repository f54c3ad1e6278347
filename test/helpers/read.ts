import { readFileSync } from "node:fs";
import type { Issue } from "../../src/errors.ts";
import type { AgentEvent } from "../../src/model/events.ts";
import { type ConsumerReading, createEventReaderFor, type ReadOptions } from "../../src/pipeline/create-event-reader.ts";
import { createSummaryBuilder, type SessionSummary } from "../../src/summary/summarize.ts";

export interface ReadResult {
  events: AgentEvent[];
  issues: Issue[];
  dialect: string | undefined;
  summary: SessionSummary;
}

/** Reads chunks through the synchronous pipeline and folds the summary, as `summary --json` does; `consumer` as a view's or writer's own reading. */
export function readAll(chunks: readonly (Uint8Array | string)[], options: ReadOptions = {}, consumer: ConsumerReading = {}): ReadResult {
  const events: AgentEvent[] = [];
  const issues: Issue[] = [];
  const builder = createSummaryBuilder();
  const reader = createEventReaderFor(
    {
      onEvent(event) {
        events.push(event);
        builder.add(event);
      },
    },
    {
      ...options,
      onIssue(issue) {
        issues.push(issue);
        builder.addIssue(issue);
      },
    },
    consumer,
  );
  for (const chunk of chunks) reader.feed(chunk);
  reader.end();
  return { events, issues, dialect: reader.dialect, summary: builder.result(reader.stats, reader.dialect, reader.health) };
}

export function readFile(path: string, options: ReadOptions = {}, consumer: ConsumerReading = {}): ReadResult {
  return readAll([readFileSync(path)], options, consumer);
}
