import { formatIssue, type Issue } from "../../errors.ts";
import type { JsonObject } from "../../model/events.ts";
import { formatSpecs, getFormatSpec } from "../../schema/formats.ts";
import { createSequenceChecker, validateEvent } from "../../schema/validate.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../command.ts";
import { readInputs, readingOptions, readingOptionsHelp, type ReadingValues } from "../_input.ts";

export const validate: Command = {
  name: "validate",
  summary: "check a stream: framing, schema and sequence rules (exit 1 on any issue)",
  help: `Usage: agentstream validate [--format <format>] [options] [file ...]

Without --format: reads any agent's output, reports every input issue, and checks that the events
it decodes to are valid agentstream events in a valid order.
With --format: checks that every record is valid in that format (its JSON Schema) and that the
stream obeys the format's sequence rules. Formats: ${formatSpecs.map((f) => f.name).join(", ")}.

Exit status: 0 when nothing was found, 1 when any issue (warning or worse) was found.

Options:
  --format <format>        the format the input must be in
${readingOptionsHelp}`,
  options: { ...readingOptions, format: { type: "string" } },
  async run(values, files, io) {
    const formatName = values.format as string | undefined;
    const spec = formatName === undefined ? undefined : getFormatSpec(formatName);
    let found = 0;
    let checked = 0;
    const report = (issue: Issue, input: string): void => {
      found++;
      if (values.quiet !== true) void io.stderr.write(`${formatIssue(issue, input)}\n`);
    };
    const readValues = { ...(values as ReadingValues) };
    if (spec !== undefined) {
      // Validate the records as written: read them verbatim (the `json` dialect keeps each as raw).
      readValues.from = "json";
    }
    const validators = new Map<string, { check: (event: unknown, line: number) => Issue[]; end: () => Issue[] }>();
    const validatorFor = (input: string) => {
      let v = validators.get(input);
      if (v === undefined) {
        if (spec !== undefined) {
          const inner = spec.createValidator();
          v = { check: (record, line) => inner.check(record as JsonObject, line), end: () => inner.end() };
        } else {
          const sequence = createSequenceChecker();
          v = {
            check: (event, line) => {
              const issues = validateEvent(event, line);
              return issues.length > 0 ? issues : sequence.check(event as never, line);
            },
            end: () => sequence.end(),
          };
        }
        validators.set(input, v);
      }
      return v;
    };
    const runs = await readInputs(files, io, readValues, {
      onEvent(event, input) {
        const line = event.source?.line ?? 0;
        if (spec !== undefined) {
          if (event.type !== "unknown") return; // text lines: reported by the reader already
          checked++;
          for (const issue of validatorFor(input).check(event.raw, line)) report(issue, input);
        } else {
          checked++;
          for (const issue of validatorFor(input).check(event, line)) report(issue, input);
        }
      },
      onIssue(issue) {
        if (issue.severity !== "info") found++;
      },
    });
    for (const run of runs) for (const issue of validatorFor(run.name).end()) report(issue, run.name);
    if (values.quiet !== true) {
      await io.stderr.write(`${found === 0 ? "valid" : "invalid"}: ${checked} ${spec ? "records" : "events"} checked, ${found} issue${found === 1 ? "" : "s"}\n`);
    }
    return found === 0 ? EXIT.ok : EXIT.issues;
  },
};
