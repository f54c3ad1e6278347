/**
 * One session file read for the MCP tools, always redacted (secrets become `[REDACTED:<kind>]` before anything is
 * kept): its summaries as `summary --json` makes them, or one page of its transcript (text lines or events).
 * The file is read in fixed chunks, so the same file gives the same events, and pages never overlap or leave a gap.
 * Only the page asked for is kept, whatever the size of the file.
 */
import { createReadStream } from "node:fs";
import type { AgentEvent } from "../model/events.ts";
import { createEventReader, type EventReader, type EventReaderCallbacks, type ReadOptions } from "../pipeline/create-event-reader.ts";
import { INPUT_START, type ReaderCounters, type SummaryWithRedactions, summarizeSession } from "../pipeline/session-summary.ts";
import { createSummaryBuilder } from "../summary/summarize.ts";
import { createTextWriter } from "../views/transcript/text.ts";

const CHUNK_BYTES = 256 * 1024;

/** Reads `path` through a reader made with `callbacks`, redaction on whatever else `options` says. */
async function readFile(path: string, callbacks: EventReaderCallbacks, options: ReadOptions): Promise<EventReader> {
  const reader = createEventReader(callbacks, { ...options, redact: true });
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) reader.feed(chunk as Buffer);
  reader.end();
  return reader;
}

/** Every session of the file (a session log holds one), as `summary --json` gives each. */
export async function summarizeFile(path: string): Promise<SummaryWithRedactions[]> {
  const summaries: SummaryWithRedactions[] = [];
  let builder = createSummaryBuilder();
  let from: ReaderCounters = INPUT_START;
  const reader = await readFile(
    path,
    {
      onEvent: (event) => builder.add(event),
      onSessionBoundary(boundary) {
        const to = { stats: boundary.statsBefore, health: boundary.healthBefore, redactions: boundary.redactionsBefore };
        summaries.push(summarizeSession(builder, from, to, boundary.previousDialect));
        builder = createSummaryBuilder();
        from = to;
      },
    },
    // The facts need no tool output: long ones are skipped (checked, not decoded), as `summary` does.
    { fields: "summary", onIssue: (issue) => builder.addIssue(issue) },
  );
  const to = { stats: reader.stats, health: reader.health, redactions: reader.redactions };
  summaries.push(summarizeSession(builder, from, to, reader.dialect));
  return summaries;
}

/** A window of a transcript: items `offset` to `offset + limit`, cut short when it would pass `maxChars`. */
export interface PageRequest {
  readonly offset: number;
  readonly limit: number;
  /** The page stops before the item that would take it past this many characters (it always holds one). */
  readonly maxChars: number;
}

export interface Page<T> {
  readonly items: T[];
  /** Items in the whole transcript. */
  readonly total: number;
  /** Where the next page starts; null at the end. */
  readonly nextOffset: number | null;
}

/** Collects the items of one page as they stream past, counting all of them. */
class PageCollector<T> {
  readonly items: T[] = [];
  total = 0;
  chars = 0;
  full = false;
  readonly request: PageRequest;
  readonly size: (item: T) => number;
  constructor(request: PageRequest, size: (item: T) => number) {
    this.request = request;
    this.size = size;
  }

  add(item: T): void {
    const index = this.total++;
    if (index < this.request.offset || this.full || this.items.length >= this.request.limit) return;
    const size = this.size(item);
    if (this.items.length > 0 && this.chars + size > this.request.maxChars) {
      this.full = true;
      return;
    }
    this.chars += size;
    this.items.push(item);
  }

  page(): Page<T> {
    const next = this.request.offset + this.items.length;
    return { items: this.items, total: this.total, nextOffset: next < this.total ? next : null };
  }
}

/**
 * A page of the session's events (the agentstream event model, docs/events.md; no `raw` records), read with the
 * default options: an event's index is its `seq`, the `event` a search hit names (`render --at`).
 */
export async function eventsPage(path: string, request: PageRequest): Promise<Page<AgentEvent>> {
  const collector = new PageCollector<AgentEvent>(request, (event) => JSON.stringify(event).length);
  await readFile(path, { onEvent: (event) => collector.add(event) }, {});
  return collector.page();
}

/** A page of the session's text transcript (`convert --to text`), in lines; a line longer than `maxChars` is cut. */
export async function textPage(path: string, request: PageRequest): Promise<Page<string>> {
  const collector = new PageCollector<string>(request, (line) => line.length + 1);
  const writer = createTextWriter();
  let pending = "";
  const addText = (text: string): void => {
    if (text === "") return;
    const lines = (pending + text).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) collector.add(cut(line, request.maxChars));
  };
  await readFile(path, { onEvent: (event) => addText(writer.write(event)) }, {});
  addText(writer.end());
  if (pending !== "") collector.add(cut(pending, request.maxChars));
  return collector.page();
}

function cut(line: string, maxChars: number): string {
  return line.length <= maxChars ? line : `${line.slice(0, maxChars)}… (line cut: ${line.length - maxChars} more characters)`;
}
