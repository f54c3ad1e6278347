/**
 * Validation of one agentstream event against the model's JSON Schema, and the ajv-error-to-Issue
 * translation every format's validator shares. Stream rules live in formats/agentstream/rules.ts.
 */
import type { Issue } from "../errors.ts";
import { compileSchema, type ErrorObject, type ValidateFunction } from "./ajv.ts";
import { agentstreamSchema } from "./agent-event-schema.ts";

let compiled: ValidateFunction | undefined;

/** Checks one value against the agentstream event schema. An empty array means it is valid. */
export function validateEvent(value: unknown, line?: number): Issue[] {
  compiled ??= compileSchema(agentstreamSchema);
  if (compiled(value)) return [];
  return schemaIssues(compiled.errors ?? [], line);
}

/** Turns ajv errors into issues with a readable message and a path. */
export function schemaIssues(errors: readonly ErrorObject[], line?: number): Issue[] {
  // `if` failures restate the `then` error they lead to; keep the errors that say something.
  const useful = errors.filter((e) => e.keyword !== "if");
  return useful.map((error) => {
    const path = error.instancePath
      .split("/")
      .slice(1)
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, "/").replace(/~0/g, "~")));
    const where = error.instancePath === "" ? "event" : error.instancePath.slice(1);
    let detail = error.message ?? "is invalid";
    if (error.keyword === "unevaluatedProperties" || error.keyword === "additionalProperties") {
      const extra =
        (error.params as { unevaluatedProperty?: string; additionalProperty?: string }).unevaluatedProperty ??
        (error.params as { additionalProperty?: string }).additionalProperty;
      detail = `has a property the schema does not allow: "${extra}"`;
    } else if (error.keyword === "enum") {
      detail = `must be one of ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`;
    }
    const issue: Issue = { code: "schema-mismatch", severity: "error", message: `${where} ${detail}`, path };
    return line === undefined ? issue : { ...issue, line };
  });
}
