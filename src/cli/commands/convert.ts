import { getOutputFormat, outputFormats } from "../../output-formats.ts";
import { readInputs, readingStatus } from "../input.ts";
import { defineCommand } from "../args.ts";
import { createBatchedOutput } from "../output.ts";
import { readingOptions } from "../reading-options.ts";
import { createRecordSink } from "../sinks/record-sink.ts";
import { followOption, readingSources } from "../sources/files.ts";
import { latestConventionsOnly, resourceAttributesFromEnv } from "../../otel/config.ts";
import { summaryFacts } from "../../otel/facts.ts";
import type { EncoderOptions } from "../../encoding/record-encoder.ts";

export const convert = defineCommand({
  name: "convert",
  summary: "convert any agent's output to another format (NDJSON out)",
  usage: "convert --to <format> [options] [file ...]",
  description: `Reads agent output (files, or stdin when none or "-") and writes it in another format to stdout.`,
  options: {
    to: {
      type: "string",
      default: "agentstream",
      valueHint: "<format>",
      description: `output format (default: agentstream); one of: ${outputFormats.map((f) => f.name).join(", ")}`,
    },
    sse: { type: "boolean", default: false, description: "Server-Sent Events framing (any format; id: = record number)" },
    coalesce: {
      type: "string",
      default: "none",
      valueHint: "<mode>",
      choices: ["none", "sentence"],
      description: "aaep: none | sentence (re-chunk text at sentence boundaries)",
    },
    "final-summary": { type: "boolean", default: false, description: "codex-thread: print the final pretty JSON summary after the stream" },
    "dual-brain": {
      type: "boolean",
      default: false,
      description: 'witness: brain "path1" on analysis lines, "path2" on final lines (the spec\'s migration from Harmony channels)',
    },
    "capture-content": {
      type: "boolean",
      default: false,
      description: "otlp: also write prompts, answers, tool arguments and results (after redaction; off by default)",
    },
    ...followOption,
    ...readingOptions,
  },
  examples: [
    'codex exec --json "fix the tests" | agentstream convert --to agentstream',
    "agentstream convert --from claude --to agentstream session.jsonl > events.ndjson",
    "agentstream convert -f --to agentstream agent-output.jsonl   # as the agent writes it",
    "agentstream convert --to otlp session.jsonl > spans.json   # OpenTelemetry traces (docs/otel.md)",
  ],
  async run({ values, positionals, io }) {
    const format = getOutputFormat(values.to);
    const output = createBatchedOutput(io.stdout);
    const sink = createRecordSink(
      format,
      {
        sse: values.sse,
        coalesce: values.coalesce,
        finalSummary: values["final-summary"],
        dualBrain: values["dual-brain"],
        ...(format.name === "otlp" ? otlpWriterOptions(values["capture-content"], io.env) : {}),
      },
      output,
    );
    const { sources, release } = readingSources(positionals, io, values.follow);
    try {
      // A writer that copies its own format's records through needs them: each event keeps its record (`raw`).
      const reading = format.copiesOwnRecords === true ? { ...values, "include-raw": true } : values;
      const runs = await readInputs({ sources, io, reading, sink, output });
      return readingStatus(runs, values);
    } finally {
      release();
    }
  },
});

/** `--to otlp`: content only when asked, the resource and the conventions' opt-in from the OTEL_* variables. */
function otlpWriterOptions(captureContent: boolean, env: Readonly<Record<string, string | undefined>>): EncoderOptions {
  return {
    captureContent,
    latestConventionsOnly: latestConventionsOnly(env),
    resourceAttributes: resourceAttributesFromEnv(env),
    sessionFacts: summaryFacts,
  };
}
