// Source: `amp -x "<prompt>" --stream-json` (Claude Code compatible stream JSON); versions and quirks: docs/dialects/amp.md
import type { Dialect } from "../../dialect/dialect.ts";
import { claudeStreamOpening, createClaudeDecoder, isAmpThreadId, type ClaudeVariant } from "./stream-json.ts";
import { str } from "../../dialect/json.ts";

/**
 * Amp prints Claude Code's shapes (system/init, user, assistant, result) with no `stream_event`.
 * Its `assistant.message` has no `id`/`model`, its usage adds `max_tokens`, and its `result` has no
 * usage or cost, so each assistant line's usage is passed on as a `usage` delta (docs/dialects/amp.md).
 */
const AMP: ClaudeVariant = { agent: "amp", versionKeys: ["amp_version", "version"], perMessageUsage: true };

/** Amp `--stream-json`: Claude-shaped records whose `session_id` is an Amp thread id (`T-<uuid>`). */
export const amp: Dialect = {
  name: "amp",
  description: "Amp: amp -x --stream-json (Claude-compatible)",
  detect(record) {
    if (record.kind !== "json") return false;
    const type = str(record.value, "type");
    return (
      (type === "system" || type === "user" || type === "assistant" || type === "result") && isAmpThreadId(str(record.value, "session_id"))
    );
  },
  createDecoder: () => createClaudeDecoder(AMP),
  startsSession: claudeStreamOpening,
};
