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

The records may come as NDJSON or as Server-Sent Events (\`data:\` lines; \`id:\`, \`event:\` and
comments are read and skipped; the AI SDK's \`data: [DONE]\` ends the stream).

Exit status: 0 when records were checked and nothing was found, 1 when any issue (warning or
worse) was found or nothing was checked, 4 when an input was empty or not text.

Options:
  --format <format>        the format the input must be in
  --json                   print the result and every issue as JSON on stdout
${readingOptionsHelp}`,
  options: { ...readingOptions, format: { type: "string" }, json: { type: "boolean", default: false } },
  async run(values, files, io) {
    const formatName = values.format as string | undefined;
    const spec = formatName === undefined ? undefined : getFormatSpec(formatName);
    const json = values.json === true;
    const quiet = values.quiet === true || json;
    const found: Issue[] = [];
    let checked = 0;
    const report = (issue: Issue, input: string): void => {
      found.push(issue.file === undefined ? { ...issue, file: input } : issue);
      if (!quiet) void io.stderr.write(`${formatIssue(issue, input)}\n`);
    };
    // With --json the issues go to stdout as JSON, so the reader prints nothing on stderr.
    const readValues: ReadingValues = { ...(values as ReadingValues), quiet };
    if (spec !== undefined) {
      // Validate the records as written: read them verbatim (the `json` dialect keeps each as raw),
      // from NDJSON or from Server-Sent Events (`data:` lines), as the streaming formats are served.
      readValues.from = "json";
      readValues.sse = true;
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
        if (issue.severity !== "info") found.push(issue);
      },
    });
    for (const run of runs) for (const issue of validatorFor(run.name).end()) report(issue, run.name);
    const kind = spec ? "records" : "events";
    const unreadable = runs.filter((run) => run.unreadable !== undefined);
    // Nothing checked is never a pass: an input in another framing or format would otherwise look valid.
    const nothingChecked = checked === 0 && unreadable.length === 0;
    const valid = found.length === 0 && !nothingChecked && unreadable.length === 0;
    if (json) {
      const body = {
        valid,
        format: spec?.name ?? "agentstream",
        checked,
        kind,
        inputs: runs.map((run) => ({ name: run.name, framing: run.sseLines === undefined ? "ndjson" : "sse", unreadable: run.unreadable ?? null })),
        issues: found.map((issue) => ({ file: issue.file ?? null, line: issue.line ?? 0, code: issue.code, severity: issue.severity, message: issue.message, ...(issue.path === undefined ? {} : { path: issue.path }) })),
      };
      await io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    } else if (values.quiet !== true) {
      const what = `${checked} ${kind} checked, ${found.length} issue${found.length === 1 ? "" : "s"}`;
      const why = nothingChecked ? `: nothing to validate${spec ? ` (no ${spec.name} record as NDJSON or SSE data: lines)` : ""}` : "";
      await io.stderr.write(`${valid ? "valid" : "invalid"}: ${what}${why}\n`);
    }
    if (unreadable.length > 0) return EXIT.unreadable;
    return valid ? EXIT.ok : EXIT.issues;
  },
};
