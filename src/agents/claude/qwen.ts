// Source: `qwen -p "<prompt>" --output-format stream-json [--include-partial-messages]`; versions and quirks: docs/dialects/qwen.md
import type { Dialect } from "../../dialect/dialect.ts";
import { claudeStreamOpening, createClaudeDecoder, type ClaudeVariant } from "./stream-json.ts";
import { at, get, str } from "../../dialect/json.ts";

/**
 * Qwen Code prints Claude Agent SDK messages. Its init says `qwen_code_version` and `permission_mode`
 * (snake case), its stream adds a `goal_state` stream_event, thinking blocks carry `signature:""`,
 * and its result has usage (input includes cached tokens) but no cost (docs/dialects/qwen.md).
 */
const QWEN: ClaudeVariant = { agent: "qwen-code", versionKeys: ["qwen_code_version"], perMessageUsage: false };

/** Qwen Code `--output-format stream-json`: Claude-shaped records with Qwen's init and goal_state events. */
export const qwen: Dialect = {
  name: "qwen",
  description: "Qwen Code: qwen -p --output-format stream-json (Claude-compatible)",
  detect(record) {
    if (record.kind !== "json") return false;
    const v = record.value;
    const type = str(v, "type");
    if (type === "system") {
      if (typeof get(v, "qwen_code_version") === "string") return true;
      // A trimmed init may lack the version; permission_mode (snake case) is Qwen's, Claude writes permissionMode.
      return (
        str(v, "subtype") === "init" &&
        str(v, "session_id") !== undefined &&
        get(v, "permission_mode") !== undefined &&
        get(v, "claude_code_version") === undefined
      );
    }
    return type === "stream_event" && str(at(v, "event", "type")) === "goal_state";
  },
  createDecoder: () => createClaudeDecoder(QWEN),
  startsSession: claudeStreamOpening,
};
