/**
 * The validation sink: checks each input's events (agentstream events: schema, then sequence) or,
 * with a format spec, each input's records as written (the `json` dialect keeps each as `raw`).
 * It collects every issue found; the validate command reports them.
 */
import type { Issue } from "../../errors.ts";
import type { AgentEvent, JsonObject } from "../../model/events.ts";
import type { FormatSpec, FormatValidator } from "../../validation/format-spec.ts";
import { compileSchema, type ValidateFunction } from "../../validation/ajv.ts";
import { createSequenceChecker } from "../../formats/agentstream/rules.ts";
import { schemaIssues, validateEvent } from "../../validation/validate-event.ts";

import { redactedIssue, type Diagnostics } from "../diagnostics.ts";
import type { Sink } from "./sink.ts";

/** What the validation sink found so far. */
export interface ValidationSink extends Sink {
  /** Events (or records, with a format) checked. */
  readonly checked: number;
  /** Every issue of severity warning or worse: the reader's and the validators' (as printed: redacted unless asked not to). */
  readonly found: readonly Issue[];
}

interface InputValidator {
  check(event: AgentEvent, line: number): Issue[];
  end(): Issue[];
}

/** How the validation sink reports. */
export interface ValidationSinkOptions {
  /** Print nothing (the issues are still collected). */
  readonly quiet: boolean;
  /** Also print `info` issues (a Witness type the spec does not list); they never count as found. */
  readonly verbose?: boolean;
  /** Replace secrets in what is printed or collected (the records are checked as written). */
  readonly redact?: boolean;
  /**
   * False: each record alone, its schema and the rules about it (`FormatSpec.recordRules`), none about its place
   * in the stream (`--no-sequence`: a spec's example events, one record cut from a stream).
   */
  readonly sequence?: boolean;
}

/**
 * `spec` undefined: validate agentstream events; else the records of that format. Issues of severity
 * warning or worse are collected and printed through `diagnostics` unless `quiet`; `info` issues only print, with `verbose`.
 */
export function createValidationSink(
  spec: FormatSpec | undefined,
  options: ValidationSinkOptions,
  diagnostics: Diagnostics,
): ValidationSink {
  const found: Issue[] = [];
  let checked = 0;
  const validators = new Map<string, InputValidator>();
  const validatorFor = (input: string): InputValidator => {
    let validator = validators.get(input);
    if (validator === undefined) {
      const sequence = options.sequence !== false;
      validator = spec === undefined ? eventValidator(sequence) : recordValidator(spec, sequence);
      validators.set(input, validator);
    }
    return validator;
  };
  const printable = (issue: Issue): Issue => (options.redact === true ? redactedIssue(issue) : issue);
  const report = (reported: Issue, input: string): void => {
    const issue = printable(reported);
    // The docs' contract: exit 1 on a warning or worse; an info issue is said, not counted.
    if (issue.severity !== "info") found.push(issue.file === undefined ? { ...issue, file: input } : issue);
    if (!options.quiet && (issue.severity !== "info" || options.verbose === true)) diagnostics.issue(issue, input);
  };
  return {
    get checked() {
      return checked;
    },
    found,
    event(event, input) {
      if (spec !== undefined && event.type === "text") {
        // A line that is not JSON at all (JSON-looking lines that fail to parse are the reader's issues): every
        // format here is one JSON object per record, as the Witness spec's validate_ndjson_line says.
        const line = event.source?.line ?? 0;
        const message = `not a JSON record: a ${spec.name} stream has one JSON object per line (${JSON.stringify(oneLineStart(event.text))})`;
        report({ code: "non-json-line", severity: "error", message, line }, input);
        return;
      }
      if (spec !== undefined && event.type !== "unknown") return;
      checked++;
      for (const issue of validatorFor(input).check(event, event.source?.line ?? 0)) report(issue, input);
    },
    issue(issue) {
      if (issue.severity !== "info") found.push(printable(issue));
    },
    end(runs) {
      for (const run of runs) for (const issue of validatorFor(run.name).end()) report(issue, run.name);
    },
  };
}

/** An agentstream event must match the schema; the valid ones must come in a valid order (unless `inOrder` is false). */
function eventValidator(inOrder: boolean): InputValidator {
  const sequence = createSequenceChecker();
  return {
    check(event, line) {
      const issues = validateEvent(event, line);
      return issues.length > 0 || !inOrder ? issues : sequence.check(event, line);
    },
    end: () => (inOrder ? sequence.end() : []),
  };
}

/** Each record as written (kept as the `raw` of an `unknown` event) must match the format's schema and sequence rules. */
function recordValidator(spec: FormatSpec, inOrder: boolean): InputValidator {
  const inner = inOrder ? spec.createValidator(compiledSchema) : recordAloneValidator(spec);
  return {
    check: (event, line) => (event.type === "unknown" ? inner.check(event.raw as JsonObject, line) : []),
    end: () => inner.end(),
  };
}

/**
 * Each format's schema compiled once per process: `validate` makes a validator per input, and compiling a schema
 * with ajv costs more than checking a short input against it.
 */
const compiledSchemas = new WeakMap<object, ValidateFunction>();

function compiledSchema(schema: object): ValidateFunction {
  let compiled = compiledSchemas.get(schema);
  if (compiled === undefined) {
    compiled = compileSchema(schema);
    compiledSchemas.set(schema, compiled);
  }
  return compiled;
}

/** A record cut from its stream: the format's schema, then the rules about the record itself. */
function recordAloneValidator(spec: FormatSpec): FormatValidator {
  const schema = compiledSchema(spec.schema);
  return {
    check(record, line) {
      if (!schema(record)) return schemaIssues(schema.errors ?? [], line);
      return spec.recordRules?.(record, line) ?? [];
    },
    end: () => [],
  };
}

/** The start of a line for a message: at most 60 characters. */
function oneLineStart(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
