// Schema and sequence rules for `--format codex`: the current `codex exec --json` stream (0.44+). Source of truth:
// openai/codex `codex-rs/exec/src/exec_events.rs`, the @openai/codex-sdk types, and ../shared/fixtures/codex/;
// docs/formats/codex.md explains each rule. The 0.40–0.43 and legacy `{id,msg}` shapes are not this format.
import { RecentIds, VALIDATOR_RECENT_IDS } from "../../validation/recent-ids.ts";
import type { Issue } from "../../errors.ts";
import type { JsonObject } from "../../model/events.ts";
import type { ValidateFunction } from "../../validation/ajv.ts";
import type { FormatSpec, FormatValidator } from "../../validation/format-spec.ts";
import { schemaIssues } from "../../validation/validate-event.ts";

type Schema = Record<string, unknown>;

const str: Schema = { type: "string" };
const count: Schema = { type: "integer", minimum: 0 };

/** An event or item: `type` is `name`, the listed fields and nothing else. */
function shape(name: string, properties: Schema, required: readonly string[], description: string, open = false): Schema {
  return {
    description,
    type: "object",
    required: ["type", ...required],
    properties: { type: { const: name }, ...properties },
    additionalProperties: open,
  };
}

/** `if type is X then shape X`, for each shape: ajv then reports the shape's own errors, not a `oneOf` summary. */
function byType(shapes: Record<string, Schema>): Schema[] {
  return Object.keys(shapes).map((name) => ({
    if: { properties: { type: { const: name } }, required: ["type"] },
    then: { $ref: `#/$defs/${name}` },
  }));
}

const ITEM_STATUS = ["in_progress", "completed", "failed"];

const itemShapes: Record<string, Schema> = {
  agent_message: shape(
    "agent_message",
    { id: str, text: str },
    ["id", "text"],
    "The agent's answer or a message between steps (JSON text with --output-schema).",
  ),
  reasoning: shape("reasoning", { id: str, text: str }, ["id", "text"], "A reasoning summary."),
  plan: shape("plan", { id: str, text: str }, ["id", "text"], "Plan-mode text (newer builds)."),
  command_execution: shape(
    "command_execution",
    {
      id: str,
      command: { type: "string", description: "The command line (Codex writes the wrapped shell string, `/bin/bash -lc '…'`)." },
      aggregated_output: { type: "string", description: "stdout and stderr together." },
      exit_code: { type: ["integer", "null"], description: "null or absent while running; the exit code once done." },
      status: { enum: [...ITEM_STATUS, "declined"] },
    },
    ["id", "command", "aggregated_output", "status"],
    "A shell command the agent ran.",
  ),
  file_change: shape(
    "file_change",
    {
      id: str,
      changes: {
        type: "array",
        items: {
          type: "object",
          required: ["path", "kind"],
          properties: {
            path: str,
            kind: {
              description: "add | delete | update; app-server-era builds write {type, move_path}.",
              anyOf: [
                { enum: ["add", "delete", "update"] },
                {
                  type: "object",
                  required: ["type"],
                  properties: { type: { enum: ["add", "delete", "update"] }, move_path: { type: ["string", "null"] } },
                  additionalProperties: false,
                },
              ],
            },
            diff: { type: "string", description: "Unified diff (newer builds)." },
          },
          additionalProperties: false,
        },
      },
      status: { enum: ITEM_STATUS },
    },
    ["id", "changes", "status"],
    "Files the agent changed.",
  ),
  mcp_tool_call: shape(
    "mcp_tool_call",
    {
      id: str,
      server: str,
      tool: str,
      arguments: { description: "The arguments, as the model gave them." },
      result: {
        anyOf: [
          { type: "null" },
          {
            type: "object",
            required: ["content"],
            properties: { content: { type: "array", items: { type: "object" } }, structured_content: {}, _meta: {} },
            additionalProperties: false,
          },
        ],
      },
      error: {
        anyOf: [{ type: "null" }, { type: "object", required: ["message"], properties: { message: str }, additionalProperties: false }],
      },
      status: { enum: ITEM_STATUS },
    },
    ["id", "server", "tool", "status"],
    "A call to an MCP tool.",
  ),
  collab_tool_call: shape(
    "collab_tool_call",
    {
      id: str,
      tool: str,
      sender_thread_id: str,
      receiver_thread_ids: { type: "array", items: str },
      prompt: { type: ["string", "null"] },
      agents_states: { type: "object" },
      status: { enum: ITEM_STATUS },
    },
    ["id", "tool", "status"],
    "A subagent operation (newer builds).",
    true,
  ),
  web_search: shape(
    "web_search",
    {
      id: str,
      query: str,
      action: { type: "object", required: ["type"], properties: { type: str, query: str, queries: { type: "array", items: str } } },
    },
    ["id", "query"],
    "A web search.",
  ),
  todo_list: shape(
    "todo_list",
    {
      id: str,
      items: {
        type: "array",
        items: {
          type: "object",
          required: ["text", "completed"],
          properties: { text: str, completed: { type: "boolean" } },
          additionalProperties: false,
        },
      },
    },
    ["id", "items"],
    "The agent's to-do list.",
  ),
  error: shape("error", { id: str, message: str }, ["id", "message"], "A non-fatal warning."),
};

const usage: Schema = {
  type: "object",
  description: "The thread's running total: input includes cached input; output includes reasoning.",
  required: ["input_tokens", "cached_input_tokens", "output_tokens"],
  properties: {
    input_tokens: count,
    cached_input_tokens: count,
    cache_write_input_tokens: count,
    output_tokens: count,
    reasoning_output_tokens: count,
    total_tokens: count,
  },
  additionalProperties: false,
};

const itemRef: Schema = { $ref: "#/$defs/item" };

const eventShapes: Record<string, Schema> = {
  "thread.started": shape(
    "thread.started",
    { thread_id: str },
    ["thread_id"],
    "Always the first line: the thread id (for `codex exec resume`).",
  ),
  "turn.started": shape("turn.started", {}, [], "A turn (a prompt and its answer) began."),
  "turn.completed": shape("turn.completed", { usage }, ["usage"], "The turn ended; usage is the thread's running total."),
  "turn.failed": shape(
    "turn.failed",
    { error: { type: "object", required: ["message"], properties: { message: str }, additionalProperties: false } },
    ["error"],
    "The turn failed.",
  ),
  "item.started": shape(
    "item.started",
    { item: itemRef },
    ["item"],
    "An item began (commands, MCP calls, searches, to-do lists, file changes).",
  ),
  "item.updated": shape("item.updated", { item: itemRef }, ["item"], "A full snapshot of an item that changed."),
  "item.completed": shape(
    "item.completed",
    { item: itemRef },
    ["item"],
    "The final snapshot of an item (the only event for messages and reasoning).",
  ),
  error: shape("error", { message: str }, ["message"], "A stream error (often a reconnect notice; only turn.failed ends the turn)."),
  "item.plan.delta": shape(
    "item.plan.delta",
    { item_id: str, delta: str },
    ["item_id", "delta"],
    "Plan-mode text, streamed (newer builds).",
    true,
  ),
  request_user_input: shape(
    "request_user_input",
    { id: str, call_id: str, questions: { type: "array" } },
    ["questions"],
    "The model asks the user (newer builds).",
    true,
  ),
};

/** The JSON Schema 2020-12 of one `codex exec --json` line (0.44+). */
const codexSchema: Schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://agentstream.dev/schema/v1/codex.schema.json",
  title: "Codex exec --json event (0.44+)",
  description: "One line of `codex exec --json`, as openai/codex exec_events.rs writes it and @openai/codex-sdk reads it.",
  type: "object",
  required: ["type"],
  properties: { type: { enum: Object.keys(eventShapes) } },
  allOf: byType(eventShapes),
  $defs: {
    ...eventShapes,
    ...Object.fromEntries(Object.entries(itemShapes).map(([name, schema]) => [`item_${name}`, schema])),
    item: {
      type: "object",
      required: ["id", "type"],
      properties: { id: str, type: { enum: Object.keys(itemShapes) } },
      allOf: Object.keys(itemShapes).map((name) => ({
        if: { properties: { type: { const: name } }, required: ["type"] },
        then: { $ref: `#/$defs/item_${name}` },
      })),
    },
  },
};

interface ItemState {
  readonly type: string;
  completed: boolean;
}

/** Sequence rules a schema cannot state: what comes first, what a turn encloses, how an item's events pair. */
function createCodexSequence(): FormatValidator {
  let records = 0;
  let threadStarted = false;
  let turnOpen = false;
  /** Items of the stream by id; an id names one item for the whole stream. */
  // The latest VALIDATOR_RECENT_IDS items: a repeat of an older id is not seen; the memory does not grow with the stream.
  const items = new RecentIds<ItemState>(VALIDATOR_RECENT_IDS);
  /** Ids started in the open turn and not completed yet. */
  const running = new Set<string>();

  return {
    check(record, line) {
      const issues: Issue[] = [];
      const problem = (message: string, severity: Issue["severity"] = "error"): void => {
        issues.push({ code: "out-of-order", severity, message, line });
      };
      const type = record.type as string;
      records++;
      if (type === "thread.started") {
        if (threadStarted) problem("a second thread.started: a stream has one thread");
        else if (records > 1) problem("thread.started is not the first line");
        threadStarted = true;
        return issues;
      }
      if (!threadStarted && records === 1) problem(`the stream starts with ${type}: thread.started comes first`);
      switch (type) {
        case "turn.started":
          if (turnOpen) problem("turn.started while a turn is open: end it with turn.completed or turn.failed first");
          turnOpen = true;
          break;
        case "turn.completed":
        case "turn.failed": {
          if (!turnOpen) problem(`${type} without an open turn (no turn.started before it)`);
          // Codex finishes every item before turn.completed; a failed turn may leave one running.
          for (const id of running)
            problem(`item "${id}" is still in progress when the turn ends (${type})`, type === "turn.completed" ? "error" : "warning");
          running.clear();
          turnOpen = false;
          break;
        }
        case "item.started":
        case "item.updated":
        case "item.completed":
          checkItem(type, record.item as JsonObject, problem);
          break;
        default:
          break;
      }
      return issues;
    },
    end() {
      if (turnOpen)
        return [
          {
            code: "out-of-order",
            severity: "warning",
            message: "the stream ended inside a turn (no turn.completed or turn.failed): cut short?",
          },
        ];
      return [];
    },
  };

  function checkItem(phase: string, item: JsonObject, problem: (message: string) => void): void {
    const id = item.id as string;
    const type = item.type as string;
    // Warnings (error items) come before turn.started in real streams; everything else belongs to a turn.
    if (!turnOpen && type !== "error") problem(`${phase} for ${type} item "${id}" outside a turn (no turn.started before it)`);
    const known = items.get(id);
    if (known !== undefined && known.type !== type) problem(`item "${id}" was a ${known.type} and is now a ${type}: an id names one item`);
    if (phase === "item.started") {
      if (known !== undefined) problem(`item "${id}" started again (${known.completed ? "after it completed" : "while in progress"})`);
      items.set(id, { type, completed: false });
      running.add(id);
      return;
    }
    if (phase === "item.updated") {
      if (known === undefined) problem(`item.updated for item "${id}", which never started: send item.started first`);
      else if (known.completed) problem(`item.updated for item "${id}" after its item.completed`);
      return;
    }
    // item.completed: may come alone (messages, reasoning, warnings), but only once per item.
    if (known?.completed === true) problem(`item "${id}" completed twice`);
    items.set(id, { type, completed: true });
    running.delete(id);
  }
}

/** `codex`: its JSON Schema 2020-12 and sequence rules. */
export const codexSpec: FormatSpec = {
  name: "codex",
  description: "the real Codex exec --json event shapes (0.44+)",
  schema: codexSchema,
  createValidator(compile) {
    let compiled: ValidateFunction | undefined;
    const sequence = createCodexSequence();
    return {
      check(record, line) {
        compiled ??= compile(codexSchema);
        if (!compiled(record)) return schemaIssues(compiled.errors ?? [], line);
        // Sequence rules need a well-formed record; a schema failure is reported once, above.
        return sequence.check(record, line);
      },
      end: () => sequence.end(),
    };
  },
};
