/** Schema and sequence rules for `--format agentstream`: our own event model. */
import type { AgentEvent } from "../../model/events.ts";
import type { FormatSpec } from "../../validation/format-spec.ts";
import { validateEvent } from "../../validation/validate-event.ts";
import { createSequenceChecker } from "./rules.ts";
import { agentstreamSchema } from "./schema.ts";

export const agentstreamSpec: FormatSpec = {
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
