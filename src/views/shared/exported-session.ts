/**
 * The session as the HTML export embeds it (`<script type="application/json" id="agentstream-session">`)
 * and as the page reads it back: the events (their long fields cut to the export's caps), facts the
 * events do not carry, and what the caps left out. Types only: src/views/html writes it, src/views/web reads it.
 */
import type { AgentEvent } from "../../model/events.ts";

/** Facts about the export itself (the events carry the session's own). */
export interface ExportHeader {
  /** The input file, or `<stdin>`. */
  readonly input?: string;
  /** The dialect the input was read as. */
  readonly dialect?: string;
  /** `agentstream 0.1.0`. */
  readonly generator?: string;
  /** Secrets replaced in the input, by kind (absent with --no-redact or when none). */
  readonly redactions?: Readonly<Record<string, number>>;
  /** The event (its `seq`) the page opens scrolled to: `html --at`, a search hit (docs/search.md). */
  readonly at?: number;
}

/** What the size caps left out of the file (docs/web.md, "The export's caps"). */
export interface ExportTruncation {
  /** Characters kept of one text field (a tool output, a diff, a message). */
  readonly fieldChars: number;
  /** Characters kept of all text fields together; past it each field keeps only `afterBudgetChars`. */
  readonly totalChars: number;
  readonly afterBudgetChars: number;
  /** Fields shortened. */
  readonly shortened: number;
  /** Characters left out, all fields together. */
  readonly omittedChars: number;
  /** By event seq, then field name (`output`, `text`, `input`, `diff:0`): characters left out of that field. */
  readonly cut: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Streamed pieces (message deltas) not embedded because their completed message carries the whole text. */
  readonly mergedDeltas: number;
  /** Characters (fields, and each event's envelope) after which no event was embedded (docs/web.md). */
  readonly eventsChars?: number;
  /** Events left out once `eventsChars` was reached (absent when none). */
  readonly omittedEvents?: number;
}

/** The embedded JSON. */
export interface ExportedSession {
  readonly header: ExportHeader;
  readonly events: readonly AgentEvent[];
  readonly truncation: ExportTruncation;
}
