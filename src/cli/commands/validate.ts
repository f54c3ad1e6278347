import { formatSpecs, getFormatSpec } from "../../formats/index.ts";
import { readInputs } from "../input.ts";
import { createDiagnostics } from "../diagnostics.ts";
import type { InputRun } from "../sinks/sink.ts";
import { defineCommand } from "../args.ts";
import { EXIT } from "../exit.ts";
import { readingOptions } from "../reading-options.ts";
import { createValidationSink, type ValidationSink } from "../sinks/validation-sink.ts";
import { sourcesFromArguments } from "../sources/files.ts";

export const validate = defineCommand({
  name: "validate",
  summary: "check a stream: framing, schema and sequence rules (exit 1 on any issue)",
  usage: "validate [--format <format>] [options] [file ...]",
  description: `Without --format: reads any agent's output, reports every input issue, and checks that the events
it decodes to are valid agentstream events in a valid order.
With --format: checks that every record is valid in that format (its JSON Schema) and that the
stream obeys the format's sequence rules. Formats: ${formatSpecs.map((f) => f.name).join(", ")}.

The records may come as NDJSON or as Server-Sent Events (\`data:\` lines; \`id:\`, \`event:\` and
comments are read and skipped; the AI SDK's \`data: [DONE]\` ends the stream).

Exit status: 0 when records were checked and nothing was found, 1 when any issue (warning or
worse) was found or nothing was checked, 4 when an input was empty or not text.`,
  options: {
    format: { type: "string", valueHint: "<format>", description: "the format the input must be in" },
    json: { type: "boolean", default: false, description: "print the result and every issue as JSON on stdout" },
    "no-sequence": {
      type: "boolean",
      default: false,
      description: "check each record alone (its schema and its own rules), not its place in a stream: a spec's example events",
    },
    ...readingOptions,
  },
  async run({ values, positionals, io }) {
    const spec = values.format === undefined ? undefined : getFormatSpec(values.format);
    // With --json the issues go to stdout as JSON, so the reader prints nothing on stderr.
    const quiet = values.quiet || values.json;
    const diagnostics = createDiagnostics(io.stderr);
    // The records are checked as written (a redacted token would fail its pattern); what is printed is redacted.
    const sink = createValidationSink(
      spec,
      { quiet, verbose: values.verbose, redact: !values["no-redact"], sequence: !values["no-sequence"] },
      diagnostics,
    );
    // With a format, validate the records as written: read them verbatim (the `json` dialect keeps each
    // as raw), from NDJSON or from Server-Sent Events (`data:` lines), as the streaming formats are served.
    const reading = { ...values, quiet, from: spec === undefined ? values.from : "json" };
    const runs = await readInputs({
      sources: sourcesFromArguments(positionals, io),
      io,
      reading,
      sink,
      diagnostics,
      sniffSse: spec !== undefined,
      unredacted: true,
    });
    const kind = spec ? "records" : "events";
    const unreadable = runs.filter((run) => run.unreadable !== undefined);
    // Nothing checked is never a pass: an input in another framing or format would otherwise look valid.
    const nothingChecked = sink.checked === 0 && unreadable.length === 0;
    const valid = sink.found.length === 0 && !nothingChecked && unreadable.length === 0;
    if (values.json) {
      await io.stdout.write(`${JSON.stringify(validationReport(valid, spec?.name ?? "agentstream", kind, runs, sink), null, 2)}\n`);
    } else if (!values.quiet) {
      const what = `${sink.checked} ${kind} checked, ${sink.found.length} issue${sink.found.length === 1 ? "" : "s"}`;
      const why = nothingChecked ? `: nothing to validate${spec ? ` (no ${spec.name} record as NDJSON or SSE data: lines)` : ""}` : "";
      await diagnostics.say(`${valid ? "valid" : "invalid"}: ${what}${why}`);
    }
    if (unreadable.length > 0) return EXIT.unreadable;
    return valid ? EXIT.ok : EXIT.issues;
  },
});

/** The `validate --json` body (docs/cli.md). */
function validationReport(valid: boolean, format: string, kind: string, runs: readonly InputRun[], sink: ValidationSink) {
  return {
    valid,
    format,
    checked: sink.checked,
    kind,
    inputs: runs.map((run) => ({
      name: run.name,
      framing: run.sseLines === undefined ? "ndjson" : "sse",
      unreadable: run.unreadable ?? null,
    })),
    issues: sink.found.map((issue) => ({
      file: issue.file ?? null,
      line: issue.line ?? 0,
      code: issue.code,
      severity: issue.severity,
      message: issue.message,
      ...(issue.path === undefined ? {} : { path: issue.path }),
    })),
  };
}
