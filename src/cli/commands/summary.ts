import { readInputs, readingStatus } from "../input.ts";
import { defineCommand } from "../args.ts";
import { readingOptions } from "../reading-options.ts";
import { createSummarySink } from "../sinks/summary-sink.ts";
import { followOption, readingSources } from "../sources/files.ts";

export const summary = defineCommand({
  name: "summary",
  summary: "one session's facts: agent, model, status, final text, tool calls, usage, cost",
  usage: "summary [--json] [options] [file ...]",
  description: `Prints what one session did. With several files, one summary per file (a JSON array with --json).
When one input holds several sessions (\`cat a.jsonl b.jsonl | agentstream summary\`), one summary
per session (one JSON object per line with --json). Fields the input does not carry are null,
never invented. With --follow, the summaries are printed when Ctrl-C ends the reading (a session
that ends meanwhile is printed as soon as the next one starts).`,
  options: {
    json: { type: "boolean", default: false, description: "print JSON (the contract is in docs/cli.md)" },
    ...followOption,
    ...readingOptions,
  },
  async run({ values, positionals, io }) {
    const { sources, release } = readingSources(positionals, io, values.follow);
    try {
      const runs = await readInputs({
        sources,
        io,
        reading: values,
        // The facts need no tool output: long ones are skipped (checked, not decoded).
        fields: "summary",
        sink: createSummarySink({ json: values.json, inputs: Math.max(1, positionals.length) }, io.stdout),
      });
      return readingStatus(runs, values);
    } finally {
      release();
    }
  },
});
