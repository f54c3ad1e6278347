/**
 * The validation sink: checks each input's events (agentstream events: schema, then sequence) or,
 * with a format spec, each input's records as written (the `json` dialect keeps each as `raw`).
 * It collects every issue found; the validate command reports them.
 */
import type { Issue } from "../../errors.ts";
import type { AgentEvent, JsonObject } from "../../model/events.ts";
import type { FormatSpec } from "../../validation/format-spec.ts";
import { createSequenceChecker } from "../../formats/agentstream/rules.ts";
import { validateEvent } from "../../validation/validate-event.ts";
import type { Diagnostics } from "../diagnostics.ts";
import type { Sink } from "./sink.ts";

/** What the validation sink found so far. */
export interface ValidationSink extends Sink {
  /** Events (or records, with a format) checked. */
  readonly checked: number;
  /** Every issue of severity warning or worse: the reader's and the validators'. */
  readonly found: readonly Issue[];
}

interface InputValidator {
  check(event: AgentEvent, line: number): Issue[];
  end(): Issue[];
}

/** `spec` undefined: validate agentstream events; else the records of that format. Issues found are printed through `diagnostics` unless `quiet`. */
export function createValidationSink(
  spec: FormatSpec | undefined,
  options: { readonly quiet: boolean },
  diagnostics: Diagnostics,
): ValidationSink {
  const found: Issue[] = [];
  let checked = 0;
  const validators = new Map<string, InputValidator>();
  const validatorFor = (input: string): InputValidator => {
    let validator = validators.get(input);
    if (validator === undefined) {
      validator = spec === undefined ? eventValidator() : recordValidator(spec);
      validators.set(input, validator);
    }
    return validator;
  };
  const report = (issue: Issue, input: string): void => {
    found.push(issue.file === undefined ? { ...issue, file: input } : issue);
    if (!options.quiet) diagnostics.issue(issue, input);
  };
  return {
    get checked() {
      return checked;
    },
    found,
    event(event, input) {
      if (spec !== undefined && event.type !== "unknown") return; // text lines: reported by the reader already
      checked++;
      for (const issue of validatorFor(input).check(event, event.source?.line ?? 0)) report(issue, input);
    },
    issue(issue) {
      if (issue.severity !== "info") found.push(issue);
    },
    end(runs) {
      for (const run of runs) for (const issue of validatorFor(run.name).end()) report(issue, run.name);
    },
  };
}

/** An agentstream event must match the schema; the valid ones must come in a valid order. */
function eventValidator(): InputValidator {
  const sequence = createSequenceChecker();
  return {
    check(event, line) {
      const issues = validateEvent(event, line);
      return issues.length > 0 ? issues : sequence.check(event, line);
    },
    end: () => sequence.end(),
  };
}

/** Each record as written (kept as the `raw` of an `unknown` event) must match the format's schema and sequence rules. */
function recordValidator(spec: FormatSpec): InputValidator {
  const inner = spec.createValidator();
  return {
    check: (event, line) => (event.type === "unknown" ? inner.check(event.raw as JsonObject, line) : []),
    end: () => inner.end(),
  };
}
