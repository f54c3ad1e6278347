// Schema and sequence rules for `--format oneshot`, written from the oneshot "Unified Streaming JSON
// Schema Specification" (PROPOSED, 2026-01-21): the packet fields, the six types and their data
// shapes, plus the two types our writer adds (`heartbeat`, `event`); docs/formats/oneshot.md.
import { RecentIds, VALIDATOR_RECENT_IDS } from "../../validation/recent-ids.ts";
import type { Issue } from "../../errors.ts";
import type { JsonObject } from "../../model/events.ts";
import type { FormatSpec } from "../../validation/format-spec.ts";
import { schemaIssues } from "../../validation/validate-event.ts";

const str = { type: "string" };
const dataObject = (required: string[], properties: Record<string, object>): object => ({ type: "object", required, properties });
/** `if type is T then data is ...`. */
const dataFor = (type: string, data: object): object => ({
  if: { properties: { type: { const: type } }, required: ["type"] },
  then: { properties: { data } },
});

const oneshotSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://agentstream.dev/schema/v1/oneshot.schema.json",
  title: "oneshot activity packet",
  description:
    "One line of a oneshot activity log (<id>-oneshot-log.json): the spec's six types, plus `heartbeat` and `event` (agentstream extensions).",
  type: "object",
  required: ["timestamp", "ts_ms", "executor", "oneshot_id", "type", "data", "is_heartbeat"],
  properties: {
    timestamp: {
      type: "number",
      minimum: 0,
      description:
        "Unix time in seconds (float): when the event was received (docs/events.md, Times); 0 only in files written before our writers stopped writing it for no time.",
    },
    ts_ms: { type: "integer", minimum: 0, description: "The same instant in milliseconds." },
    executor: {
      type: "string",
      minLength: 1,
      description: "cline, claude, aider, gemini, direct (the spec), or codex, opencode, cursor, amp, qwen (agentstream).",
    },
    oneshot_id: { type: "string", minLength: 1 },
    type: { enum: ["preamble", "thought", "message", "tool_use", "tool_output", "completion", "heartbeat", "event"] },
    data: { type: ["object", "string"] },
    is_heartbeat: { type: "boolean" },
    raw: { description: "agentstream, with --include-raw: the source record of the packet's event." },
  },
  allOf: [
    dataFor("preamble", { type: "string" }),
    dataFor("thought", dataObject(["text"], { text: str, redacted: { type: "boolean" } })),
    dataFor("message", dataObject(["role", "content"], { role: str, content: str })),
    dataFor("tool_use", dataObject(["tool"], { tool: str, command: str, reason: str, id: str, name: str })),
    dataFor(
      "tool_output",
      dataObject(["tool", "content"], {
        tool: str,
        content: str,
        exit_code: { type: ["integer", "null"] },
        id: str,
        is_error: { type: "boolean" },
      }),
    ),
    dataFor(
      "completion",
      dataObject(["status"], { status: { enum: ["success", "failure"] }, result: { type: ["string", "null"] }, stats: { type: "object" } }),
    ),
    dataFor("heartbeat", { type: "object" }),
    dataFor("event", dataObject(["type"], { type: str })),
    { if: { properties: { type: { const: "heartbeat" } }, required: ["type"] }, then: { properties: { is_heartbeat: { const: true } } } },
  ],
};

/** `oneshot`: its JSON Schema 2020-12 and sequence rules. */
export const oneshotSpec: FormatSpec = {
  name: "oneshot",
  description: "oneshot unified activity packets",
  schema: oneshotSchema,
  createValidator(compile) {
    const validate = compile(oneshotSchema);
    let identity: { executor: string; oneshotId: string } | undefined;
    const toolUses = new RecentIds(VALIDATOR_RECENT_IDS); // the latest tool_use ids: a bounded memory

    const sequence = (record: JsonObject, line: number): Issue[] => {
      const issues: Issue[] = [];
      const problem = (message: string, severity: Issue["severity"] = "error"): void => {
        issues.push({ code: "out-of-order", severity, message, line });
      };
      const executor = record.executor as string;
      const oneshotId = record.oneshot_id as string;
      identity ??= { executor, oneshotId };
      // A log file is one oneshot session of one executor.
      if (oneshotId !== identity.oneshotId) problem(`oneshot_id "${oneshotId}" where the log began with "${identity.oneshotId}"`);
      if (executor !== identity.executor) problem(`executor "${executor}" where the log began with "${identity.executor}"`);
      if (Math.abs((record.timestamp as number) * 1000 - (record.ts_ms as number)) >= 1)
        problem(`timestamp ${String(record.timestamp)} s and ts_ms ${String(record.ts_ms)} are not the same instant`);
      const data = record.data as JsonObject;
      if (record.type === "tool_use" && typeof data.id === "string") toolUses.set(data.id, true);
      if (record.type === "tool_output" && typeof data.id === "string" && !toolUses.has(data.id))
        problem(`tool_output for tool "${data.id}", which no tool_use started`, "warning");
      return issues;
    };

    return {
      check(record, line) {
        if (!validate(record)) return schemaIssues(validate.errors ?? [], line);
        return sequence(record, line);
      },
      end: () => [],
    };
  },
};
