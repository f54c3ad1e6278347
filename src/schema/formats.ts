/**
 * Validators for the formats agentstream reads and writes: a JSON Schema per record plus a
 * sequence checker per stream. `agentstream validate --format <name>` and `schema <name>` use them.
 */
import { AgentStreamError, type Issue } from "../errors.ts";
import type { AgentEvent, JsonObject } from "../model/events.ts";
import { agentstreamSchema } from "./agentstream-schema.ts";
import { createSequenceChecker, validateEvent } from "./validate.ts";
import { aaepFormat } from "./formats/aaep.ts";
import { agUiFormat } from "./formats/ag-ui.ts";
import { aiSdkFormat } from "./formats/ai-sdk.ts";
import { codexThreadFormat } from "./formats/codex-thread.ts";
import { codexFormat } from "./formats/codex.ts";
import { oneshotFormat } from "./formats/oneshot.ts";
import { witnessFormat } from "./formats/witness.ts";

/** Validates one stream of records in a given format. */
export interface FormatValidator {
  /** Checks one record (a parsed JSON line) of the format. */
  check(record: JsonObject, line: number): Issue[];
  /** The stream ended. */
  end(): Issue[];
}

export interface FormatSpec {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema 2020-12 of one record. */
  readonly schema: object;
  createValidator(): FormatValidator;
}

const agentstreamFormat: FormatSpec = {
  name: "agentstream",
  description: "agentstream event model v1",
  schema: agentstreamSchema,
  createValidator() {
    const sequence = createSequenceChecker();
    return {
      check(record, line) {
        const issues = validateEvent(record, line);
        // Sequence rules need a well-formed event; a schema failure is reported once, above.
        if (issues.length === 0) issues.push(...sequence.check(record as unknown as AgentEvent, line));
        return issues;
      },
      end: () => sequence.end(),
    };
  },
};

/** Every format with a schema and validator. */
export const formatSpecs: FormatSpec[] = [agentstreamFormat, witnessFormat, oneshotFormat, aaepFormat, codexThreadFormat, codexFormat, agUiFormat, aiSdkFormat].filter(
  (spec): spec is FormatSpec => spec !== undefined,
);

/** The format called `name`; throws a usage error that lists the names when there is none. */
export function getFormatSpec(name: string): FormatSpec {
  const spec = formatSpecs.find((f) => f.name === name);
  if (spec === undefined) throw new AgentStreamError("unknown-format", `no schema for format "${name}"; known: ${formatSpecs.map((f) => f.name).join(", ")}`);
  return spec;
}
