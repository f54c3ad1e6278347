/**
 * Every real capture converts to every output format, and the output validates with that format's
 * own schema and sequence rules (formats with a validator). Peer-client checks live beside each
 * writer's own tests.
 */
import { describe, expect, it } from "vitest";
import { createNdjsonParser } from "../../src/framing/ndjson/create-ndjson-parser.ts";
import { formatSpecs } from "../../src/formats/index.ts";
import { outputFormats } from "../../src/output-formats.ts";
import type { Issue } from "../../src/errors.ts";
import type { AgentEvent } from "../../src/model/events.ts";
import { readFile } from "../helpers/read.ts";
import { compileOnce } from "../helpers/convert.ts";
import { listCaptures, noteSharedMissing, repoRoot } from "../helpers/shared.ts";

function convert(events: readonly AgentEvent[], format: string): string {
  const spec = outputFormats.find((f) => f.name === format);
  if (spec === undefined) throw new Error(format);
  const writer = spec.create({});
  let out = "";
  for (const event of events) out += writer.write(event);
  return out + writer.end();
}

function validateOutput(format: string, text: string): Issue[] {
  const spec = formatSpecs.find((f) => f.name === format);
  if (spec === undefined) return [];
  const validator = spec.createValidator(compileOnce);
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

noteSharedMissing();
const sources: [string, string][] = [
  ["example/claude-code-session.ndjson", `${repoRoot}/examples/claude-code-session.ndjson`],
  ...listCaptures().map(([dialect, path]): [string, string] => [`${dialect}/${path.split("/").pop()}`, path]),
];
const ndjsonFormats = outputFormats.filter((f) => f.mediaType === "application/x-ndjson").map((f) => f.name);

/** Freezes a value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Each capture's events, read once for every format, frozen: a writer that changed them would throw. */
const eventsRead = new Map<string, readonly AgentEvent[]>();
function eventsOf(path: string): readonly AgentEvent[] {
  let events = eventsRead.get(path);
  if (events === undefined) {
    events = deepFreeze(readFile(path).events);
    eventsRead.set(path, events);
  }
  return events;
}

describe.each(ndjsonFormats)("every capture converts to %s and validates", (format) => {
  it.each(sources)("%s", (_name, path) => {
    const events = eventsOf(path);
    const text = convert(events, format);
    expect(validateOutput(format, text)).toEqual([]);
  });
});

describe("a format's validator compiles its schema through the compile its caller gives", () => {
  // agentstream's is the event schema's one validator, validateEvent's (test/architecture.test.ts says why).
  const specs = formatSpecs.filter((spec) => spec.name !== "agentstream");
  it.each(specs.map((spec) => [spec.name, spec] as const))("%s", (_name, spec) => {
    const compiled: object[] = [];
    const validator = spec.createValidator((schema) => {
      compiled.push(schema);
      return compileOnce(schema);
    });
    validator.check({ type: "not-a-record-of-any-format" }, 1);
    expect(compiled).toEqual([spec.schema]);
  });
});
