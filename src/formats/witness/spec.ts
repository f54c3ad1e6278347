// Schema and sequence rules for `--format witness`, written from the Witness Forge NDJSON Event
// Specification v1.0 ("Validation Rules": `type` and `content` required, `content` a string;
// `brain` a string or null; `meta` an object or null). docs/formats/witness.md.
import type { Issue } from "../../errors.ts";
import type { JsonObject } from "../../model/events.ts";
import type { FormatSpec } from "../../validation/format-spec.ts";
import { schemaIssues } from "../../validation/validate-event.ts";

/** The spec's three types and its four reserved ones; others are allowed ("new types may be added"). */
const KNOWN_TYPES = ["analysis", "final", "metric", "tool_call", "tool_result", "error", "debug"];

const witnessSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://agentstream.dev/schema/v1/witness.schema.json",
  title: "Witness Forge NDJSON event (v1.0)",
  description: "One line of Witness Forge agent output. `type` and `content` are required; `content` may be empty but is never truncated.",
  type: "object",
  required: ["type", "content"],
  properties: {
    type: {
      type: "string",
      minLength: 1,
      description: `Event type: ${KNOWN_TYPES.join(", ")} (new types may be added).`,
      examples: KNOWN_TYPES,
    },
    content: { type: "string", description: "Main text content, UTF-8; may be empty." },
    brain: { type: ["string", "null"], description: "Brain id (`path1`, `path2`), or null for unified." },
    meta: { type: ["object", "null"], description: "Metadata: decode parameters, metric values, ids, tool inputs, exit codes." },
  },
};

/** `witness`: its JSON Schema 2020-12 and sequence rules. */
export const witnessSpec: FormatSpec = {
  name: "witness",
  description: "Witness Forge NDJSON events {type, content, brain, meta}",
  schema: witnessSchema,
  createValidator(compile) {
    const validate = compile(witnessSchema);
    return {
      check(record, line) {
        if (!validate(record)) return schemaIssues(validate.errors ?? [], line);
        return unknownType(record, line);
      },
      end: () => [],
    };
  },
  recordRules: (record, line) => unknownType(record, line),
};

/** A type outside the spec's seven: `info` only, as the spec allows new types (validate does not count it). */
function unknownType(record: JsonObject, line: number): Issue[] {
  if (KNOWN_TYPES.includes(record.type as string)) return [];
  return [
    {
      code: "unknown-record",
      severity: "info",
      message: `type "${String(record.type)}" is not one of the spec's types (${KNOWN_TYPES.join(", ")}); renderers show it as plain text`,
      line,
    },
  ];
}
