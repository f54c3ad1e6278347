/**
 * Helpers for writer tests: write events in a format, validate the output with that format's own
 * validator, and read it back with a dialect (round trips).
 */
import type { Dialect } from "../../src/dialect/dialect.ts";
import type { Issue } from "../../src/errors.ts";
import type { AgentEvent } from "../../src/model/events.ts";
import { createNdjsonParser } from "../../src/framing/ndjson/create-ndjson-parser.ts";
import { getFormatSpec } from "../../src/formats/index.ts";
import { getOutputFormat, type WriterOptions } from "../../src/output-formats.ts";
import { compileSchema, type ValidateFunction } from "../../src/validation/ajv.ts";
import { expect } from "vitest";
import type { SessionSummary } from "../../src/summary/summarize.ts";
import { readAll, type ReadResult } from "./read.ts";
import { listCaptures, repoRoot } from "./shared.ts";

/** Writes events with the named writer; returns the whole output. */
export function convertEvents(events: readonly AgentEvent[], format: string, options: WriterOptions = {}): string {
  const writer = getOutputFormat(format).create(options);
  const parts: string[] = [];
  for (const event of events) parts.push(writer.write(event));
  parts.push(writer.end());
  return parts.join("");
}

/** The JSON records of NDJSON text. */
export function records(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Each format's schema compiled once per test file (a validator per output would compile it again each time). */
const compiledSchemas = new WeakMap<object, ValidateFunction>();
export function compileOnce(schema: object): ValidateFunction {
  const compiled = compiledSchemas.get(schema) ?? compileSchema(schema);
  compiledSchemas.set(schema, compiled);
  return compiled;
}

/** Every issue (info excluded) the named format's validator finds in NDJSON text. */
export function validateFormat(format: string, text: string): Issue[] {
  const validator = getFormatSpec(format).createValidator(compileOnce);
  const issues: Issue[] = [];
  const parser = createNdjsonParser(
    {
      onRecord(record) {
        if (record.kind === "json") issues.push(...validator.check(record.value, record.line));
        else issues.push({ code: "invalid-json", severity: "error", message: `not JSON: ${record.text.slice(0, 80)}`, line: record.line });
      },
      onIssue(issue) {
        if (issue.severity !== "info") issues.push(issue);
      },
    },
    { framing: "ndjson" },
  );
  parser.feed(text);
  parser.end();
  issues.push(...validator.end());
  return issues.filter((i) => i.severity !== "info");
}

/** Validates hand-made records (objects) as one stream. */
export function validateRecords(format: string, values: readonly object[]): Issue[] {
  return validateFormat(format, `${values.map((v) => JSON.stringify(v)).join("\n")}\n`);
}

/** Reads text back with one dialect (repair on, as a user would). */
export function readBack(text: string, dialect: Dialect): ReadResult {
  return readAll([text], { dialect });
}

/** The example session and every real capture, as [name, path]. */
export function sources(): [string, string][] {
  return [
    ["example/claude-code-session.ndjson", `${repoRoot}/examples/claude-code-session.ndjson`],
    ...listCaptures().map(([dialect, path]): [string, string] => [`${dialect}/${path.split("/").pop()}`, path]),
  ];
}

/** A round trip keeps the session's facts: final text, tool calls, usage and status. */
export function expectSameFacts(back: SessionSummary, source: SessionSummary): void {
  expect(back.finalText).toEqual(source.finalText);
  expect(back.toolCalls).toEqual(source.toolCalls);
  expect(back.usage).toEqual(source.usage);
  // `ended` is what the saved-session dialects know of their own logs (no end record by nature); a format written from
  // one carries no end record either, and its reader, which cannot know the log was whole, says `incomplete`.
  expect(back.status).toEqual(source.status === "ended" ? "incomplete" : source.status);
}
