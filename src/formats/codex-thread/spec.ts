// Schema and sequence rules for `--format codex-thread`, written from the dev-agent "Streaming JSON
// Output Design" (yaodihuang/Plan_Agent dev_agent/docs/stream-json.md): the envelope, the event
// catalog's required fields, and the ordering the design implies; docs/formats/codex-thread.md.
import type { Issue } from "../../errors.ts";
import type { JsonObject } from "../../model/events.ts";
import type { FormatSpec } from "../../validation/format-spec.ts";
import { schemaIssues } from "../../validation/validate-event.ts";

const str = { type: "string" };
const nullableStr = { type: ["string", "null"] };
const nullableInt = { type: ["integer", "null"], minimum: 0 };
/** `if type is T then these fields are required and shaped so`. */
const event = (type: string, required: string[], properties: Record<string, object>): object => ({
  if: { properties: { type: { const: type } }, required: ["type"] },
  then: { required, properties },
});

/** The event types a codex-thread stream may hold: the design's catalog, its `publish.*` aliases, `log`, and the earlier `assistant.message`. */
export const CODEX_THREAD_TYPES = [
  "thread.started",
  "turn.started",
  "turn.completed",
  "item.started",
  "item.completed",
  "thread.completed",
  "error",
  "log",
  "publish.started",
  "publish.completed",
  "assistant.message",
] as const;

const codexThreadSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://agentstream.dev/schema/v1/codex-thread.schema.json",
  title: "codex-thread event (dev-agent --stream-json design)",
  description:
    "One line of a Codex-style --stream-json lifecycle: thread / turn / item events with an RFC 3339 UTC timestamp, a strictly increasing sequence and one thread_id.",
  type: "object",
  required: ["type", "timestamp", "sequence", "thread_id"],
  properties: {
    type: { enum: [...CODEX_THREAD_TYPES] },
    timestamp: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$", description: "RFC 3339 in UTC (`Z`)." },
    sequence: { type: "integer", minimum: 0, description: "Strictly increasing within a run." },
    thread_id: { type: "string", minLength: 1, description: "The same on every event of a run." },
    session_id: str,
  },
  allOf: [
    event("thread.started", ["task", "project_name", "parent_branch_id", "headless"], {
      task: nullableStr,
      project_name: nullableStr,
      parent_branch_id: nullableStr,
      headless: { type: ["boolean", "null"] },
    }),
    event("turn.started", ["turn_id", "iteration", "message_count"], {
      turn_id: str,
      iteration: nullableInt,
      message_count: nullableInt,
      tool_count: nullableInt,
    }),
    event("turn.completed", ["turn_id", "iteration", "tool_call_count", "has_final_report"], {
      turn_id: str,
      iteration: nullableInt,
      tool_call_count: nullableInt,
      has_final_report: { type: ["boolean", "null"] },
    }),
    event("item.started", ["item_id", "kind", "name", "args"], { item_id: str, kind: str, name: str }),
    event("item.completed", ["item_id", "status", "duration_ms", "summary"], {
      item_id: str,
      status: { enum: ["success", "error", "incomplete"] },
      duration_ms: nullableInt,
      summary: str,
      branch_id: str,
    }),
    event("thread.completed", ["status", "summary", "final_report"], {
      status: str,
      summary: str,
      final_report: { type: ["object", "null"] },
    }),
    event("error", ["scope", "message"], { scope: str, message: str, iteration: nullableInt, item_id: str }),
    event("log", ["level", "message"], { level: { enum: ["info", "warning"] }, message: str, event: { type: "object" } }),
    event("publish.started", ["parent_branch_id", "workspace_dir"], { parent_branch_id: nullableStr, workspace_dir: nullableStr }),
    event("publish.completed", ["branch_id", "publish_report"], { branch_id: nullableStr }),
    event("assistant.message", ["turn_id", "preview"], { turn_id: str, preview: str }),
  ],
};

/** `codex-thread`: its JSON Schema 2020-12 and sequence rules. */
export const codexThreadSpec: FormatSpec = {
  name: "codex-thread",
  description: "Codex-style --stream-json lifecycle (dev-agent design: thread/turn/item)",
  schema: codexThreadSchema,
  createValidator(compile) {
    const validate = compile(codexThreadSchema);
    let lastSequence: number | undefined;
    let threadId: string | undefined;
    let records = 0;
    let completed = false;
    const openItems = new Set<string>();
    const turns = new Set<string>();

    const sequence = (record: JsonObject, line: number): Issue[] => {
      const issues: Issue[] = [];
      const problem = (message: string, severity: Issue["severity"] = "error"): void => {
        issues.push({ code: "out-of-order", severity, message, line });
      };
      const type = record.type as string;
      const seq = record.sequence as number;
      records++;
      if (lastSequence !== undefined && seq <= lastSequence) problem(`sequence ${seq} after ${lastSequence}: it must increase strictly`);
      lastSequence = seq;
      threadId ??= record.thread_id as string;
      if (record.thread_id !== threadId) problem(`thread_id "${String(record.thread_id)}" where the run began with "${threadId}"`);
      if (records === 1 && type !== "thread.started") problem(`the first event is ${type}; a run begins with thread.started`);
      if (records > 1 && type === "thread.started") problem("a second thread.started: one run is one thread");
      if (completed) problem(`${type} after thread.completed, which must be the last event`);
      switch (type) {
        case "item.started": {
          const id = record.item_id as string;
          if (openItems.has(id)) problem(`item "${id}" started twice`);
          openItems.add(id);
          break;
        }
        case "item.completed": {
          const id = record.item_id as string;
          if (!openItems.delete(id)) problem(`item.completed for item "${id}", which no item.started opened`);
          break;
        }
        case "turn.started":
          turns.add(record.turn_id as string);
          break;
        case "turn.completed":
          if (!turns.delete(record.turn_id as string))
            problem(`turn.completed for turn "${String(record.turn_id)}", which never started`, "warning");
          break;
        case "thread.completed":
          completed = true;
          break;
        default:
          break;
      }
      return issues;
    };

    return {
      check(record, line) {
        if (!validate(record)) return schemaIssues(validate.errors ?? [], line);
        return sequence(record, line);
      },
      end() {
        const issues: Issue[] = [];
        if (records > 0 && !completed)
          issues.push({ code: "out-of-order", severity: "warning", message: "the run has no thread.completed (cut short?)" });
        for (const id of openItems) issues.push({ code: "out-of-order", severity: "warning", message: `item "${id}" never completed` });
        return issues;
      },
    };
  },
};
