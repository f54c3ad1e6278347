// Schema and sequence rules for `--format aaep`: the AAEP v1 schemas (./aaep-schema.ts, written from
// Ramseyxlil/aaep) plus the stream rules of its conformance suite, as summarised in
// ../shared/docs/aaep-rules.md (rule ids L1-ENV, L1-LIFE, L1-TOOL, L1-STREAM, L*-SAFETY); docs/formats/aaep.md.
import type { Issue } from "../../errors.ts";
import type { JsonObject } from "../../model/events.ts";
import type { ValidateFunction } from "../../validation/ajv.ts";
import { RecentIds, VALIDATOR_RECENT_IDS } from "../../validation/recent-ids.ts";
import type { FormatSpec } from "../../validation/format-spec.ts";
import { schemaIssues } from "../../validation/validate-event.ts";
import { AAEP_HANDSHAKE_TYPES } from "./handshake-schema.ts";
import { AAEP_CRITICAL_TYPES, AAEP_TERMINAL_TYPES, aaepSchema, aaepSecretMarker, codePointLength } from "./schema.ts";

/** L1-ENV-004: `T` separator, optional fraction, `Z` or an offset. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** The user-facing fields L1-SAFETY-007 reads. */
const SPOKEN_FIELDS = ["args_summary", "summary_terse", "summary_normal", "summary_detailed", "consequence", "action"];

interface SessionState {
  started: boolean;
  events: number;
  terminal: string | undefined;
  /** Open tool calls by tool_call_id (or by tool name, for calls without an id: L1-TOOL-001 matching). */
  openCalls: Map<string, string>;
  /** The latest `AAEP_RECENT_IDS` tool_call_ids invoked. */
  invokedIds: RecentIds;
  openByName: Map<string, number>;
  confirmations: number;
  expectedSequence: number | undefined;
}

interface OutputState {
  position: number;
  end: number;
  completions: number;
}

/** `aaep`: its JSON Schema 2020-12 and sequence rules. */
export const aaepSpec: FormatSpec = {
  name: "aaep",
  description: "AAEP v1 events: agent.output.streaming chunks and the core lifecycle events",
  schema: aaepSchema,
  createValidator(compile) {
    const validator = new AaepStreamValidator(compile(aaepSchema));
    return {
      check(record, line) {
        if (!validator.validate(record)) return schemaIssues(validator.validate.errors ?? [], line);
        // A subscriber's or producer's handshake message (a reply logged beside the events) is in no session.
        return isHandshake(record) ? [] : validator.rules(record, line);
      },
      end() {
        const issues: Issue[] = [];
        for (const [id, session] of validator.sessions) {
          if (!session.started)
            issues.push({ code: "out-of-order", severity: "error", message: `L1-LIFE-004: session ${id} has no agent.session.started` });
          if (session.terminal === undefined)
            issues.push({
              code: "out-of-order",
              severity: "error",
              message: `L1-LIFE-001: session ${id} has no terminal event (completed, errored or cancelled)`,
            });
          for (const [callId, tool] of session.openCalls)
            issues.push({
              code: "out-of-order",
              severity: "error",
              message: `L1-TOOL-002: tool call ${callId} (${tool}) in session ${id} never completed`,
            });
        }
        for (const [key, output] of validator.outputs) {
          if (output.completions === 0)
            issues.push({ code: "out-of-order", severity: "error", message: `L1-STREAM-002: output "${key}" has no complete=true chunk` });
        }
        return issues;
      },
    };
  },
  recordRules: (record, line) => (isHandshake(record) ? [] : aaepRecordRules(record, line)),
};

function isHandshake(record: JsonObject): boolean {
  return typeof record.type === "string" && AAEP_HANDSHAKE_TYPES.includes(record.type);
}

/** The rules about one event alone (beyond its schema): its timestamp, its urgency, its spoken fields. */
function aaepRecordRules(record: JsonObject, line: number): Issue[] {
  const issues: Issue[] = [];
  const problem = (rule: string, message: string, severity: Issue["severity"] = "error"): void => {
    issues.push({ code: "out-of-order", severity, message: `${rule}: ${message}`, line });
  };
  const type = record.type as string;
  if (!RFC3339.test(record.timestamp as string))
    issues.push({
      code: "schema-mismatch",
      severity: "error",
      message: `L1-ENV-004: timestamp "${String(record.timestamp)}" is not RFC 3339`,
      line,
      path: ["timestamp"],
    });
  if (AAEP_CRITICAL_TYPES.includes(type) && record.urgency !== "critical")
    problem("L1-SAFETY-002", `${type} must carry urgency "critical"`);
  for (const field of SPOKEN_FIELDS) {
    const value = record[field];
    const marker = typeof value === "string" ? aaepSecretMarker(value) : undefined;
    if (marker !== undefined) problem("L1-SAFETY-007", `${field} contains the secret marker "${marker.trim()}"`, "warning");
  }
  return issues;
}

/**
 * Event ids (and each session's invoked tool_call_ids) remembered to report a repeat: the latest this many, so the
 * validator's memory does not grow with the stream (docs/formats/aaep.md).
 */
export const AAEP_RECENT_IDS = VALIDATOR_RECENT_IDS;

/** What the AAEP stream rules have seen of one stream, and the rules. */
class AaepStreamValidator {
  readonly validate: ValidateFunction<unknown>;
  readonly sessions: Map<string, SessionState>;
  readonly outputs: Map<string, OutputState>;
  /** The latest `AAEP_RECENT_IDS` event ids: a repeat of an older one is not seen (docs/formats/aaep.md). */
  readonly eventIds: RecentIds;

  constructor(validate: ValidateFunction) {
    this.validate = validate;
    this.sessions = new Map<string, SessionState>();
    this.outputs = new Map<string, OutputState>();
    this.eventIds = new RecentIds(AAEP_RECENT_IDS);
  }

  sessionOf(id: string): SessionState {
    let state = this.sessions.get(id);
    if (state === undefined) {
      state = {
        started: false,
        events: 0,
        terminal: undefined,
        openCalls: new Map(),
        invokedIds: new RecentIds(AAEP_RECENT_IDS),
        openByName: new Map(),
        confirmations: 0,
        expectedSequence: undefined,
      };
      this.sessions.set(id, state);
    }
    return state;
  }

  rules(record: JsonObject, line: number): Issue[] {
    const issues: Issue[] = [];
    const problem = (rule: string, message: string, severity: Issue["severity"] = "error"): void => {
      issues.push({ code: "out-of-order", severity, message: `${rule}: ${message}`, line });
    };
    const type = record.type as string;
    const sessionId = record.session_id as string;
    const session = this.sessionOf(sessionId);
    session.events++;

    issues.push(...aaepRecordRules(record, line));
    const eventId = record.event_id as string;
    if (this.eventIds.has(eventId)) problem("event_id", `"${eventId}" was used before; event ids are unique in a stream`);
    this.eventIds.set(eventId, true);

    // Session lifecycle (L1-LIFE-*), per session_id.
    if (session.terminal !== undefined) problem("L1-LIFE-003", `${type} after the session's terminal event ${session.terminal}`);
    if (type === "aaep:agent.session.started") {
      if (session.events > 1) problem("L1-LIFE-003", "agent.session.started must be the session's first event and occur once");
    } else if (session.events === 1) {
      problem("L1-LIFE-003", `the session's first event is ${type}, not agent.session.started`);
    }
    if (type === "aaep:agent.session.started") session.started = true;
    if (AAEP_TERMINAL_TYPES.includes(type)) session.terminal ??= type;
    // Spec 3.4.1: sequence_number, when used, is 0 on session.started and rises by 1.
    if (typeof record.sequence_number === "number") {
      const expected = session.expectedSequence ?? (type === "aaep:agent.session.started" ? 0 : record.sequence_number);
      if (record.sequence_number !== expected) problem("sequence_number", `${record.sequence_number} where ${expected} was expected`);
      session.expectedSequence = record.sequence_number + 1;
    }

    // Tools (L1-TOOL-*, L2-TOOL-005).
    const tool = record.tool as string | undefined;
    const callId = record.tool_call_id as string | undefined;
    if (type === "aaep:agent.awaiting.confirmation") session.confirmations++;
    if (type === "aaep:agent.tool.invoked" && tool !== undefined) {
      if (callId !== undefined) {
        if (session.invokedIds.has(callId)) problem("L1-TOOL-002", `tool_call_id "${callId}" invoked twice`);
        session.invokedIds.set(callId, true);
        session.openCalls.set(callId, tool);
      } else {
        session.openByName.set(tool, (session.openByName.get(tool) ?? 0) + 1);
      }
      if (record.irreversible === true && session.confirmations === 0)
        problem("L2-TOOL-005", `irreversible tool "${tool}" invoked with no agent.awaiting.confirmation before it`);
    }
    if (type === "aaep:agent.tool.completed" && tool !== undefined) {
      if (callId !== undefined) {
        const invoked = session.openCalls.get(callId);
        if (invoked === undefined)
          problem("L1-TOOL-001", `agent.tool.completed for tool_call_id "${callId}", which was not invoked (or already completed)`);
        else if (invoked !== tool)
          problem("L1-TOOL-004", `tool_call_id "${callId}" was invoked as "${invoked}" and completed as "${tool}"`);
        session.openCalls.delete(callId);
      } else {
        const open = session.openByName.get(tool) ?? 0;
        if (open === 0) problem("L1-TOOL-001", `agent.tool.completed for "${tool}" with no matching agent.tool.invoked`);
        else session.openByName.set(tool, open - 1);
      }
    }

    // Output streaming (L1-STREAM-001..003); no output_id means the session's one implicit output.
    if (type === "aaep:agent.output.streaming") {
      const key = typeof record.output_id === "string" ? record.output_id : `session:${sessionId}`;
      const position = record.position as number;
      const chunk = record.chunk as string;
      const output = this.outputs.get(key);
      if (output !== undefined) {
        if (output.completions > 0) problem("L1-STREAM-003", `a chunk for output "${key}" after its complete=true chunk`);
        if (position < output.position)
          problem("L1-STREAM-001", `position ${position} after ${output.position} in output "${key}": positions never go down`);
        else if (position !== output.end)
          problem(
            "continuity",
            `position ${position} where the chunks before end at ${output.end} (${position > output.end ? "a gap" : "an overlap"}; positions count code points)`,
            "warning",
          );
      }
      const state = output ?? { position, end: 0, completions: 0 };
      state.position = position;
      state.end = position + codePointLength(chunk);
      if (record.complete === true) {
        state.completions++;
        if (state.completions > 1) problem("L1-STREAM-002", `output "${key}" completed twice`);
      }
      this.outputs.set(key, state);
    }
    return issues;
  }
}
