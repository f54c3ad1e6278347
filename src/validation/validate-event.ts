/**
 * Validation of one agentstream event against the model's JSON Schema, and the ajv-error-to-Issue
 * translation every format's validator shares. Stream rules live in formats/agentstream/rules.ts.
 *
 * The event schema is compiled ahead of time (scripts/generate-event-validator.mjs writes
 * _event-validator.generated.ts, a test keeps it equal to the schema): reading a stream, which checks
 * the events other formats carry inside their records (dialect/embedded.ts), loads no ajv and compiles nothing.
 */
import type { ErrorObject, ValidateFunction } from "./ajv.ts";
import type { Issue } from "../errors.ts";
import { validate as generatedEventValidator } from "./_event-validator.generated.ts";
import { acceptingLosslessIntegers } from "./lossless.ts";

const eventValidator = acceptingLosslessIntegers(generatedEventValidator as unknown as ValidateFunction);

/** Checks one value against the agentstream event schema. An empty array means it is valid. */
export function validateEvent(value: unknown, line?: number): Issue[] {
  if (eventValidator(value)) return [];
  return schemaIssues(eventValidator.errors ?? [], line);
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
