import { AgentStreamError } from "../../errors.ts";
import { getOutputFormat, outputFormats, type WriterOptions } from "../../serialize/index.ts";
import type { Command } from "../command.ts";
import { readInputs, readingStatus, readingOptions, readingOptionsHelp, type ReadingValues } from "../_input.ts";

export const convert: Command = {
  name: "convert",
  summary: "convert any agent's output to another format (NDJSON out)",
  help: `Usage: agentstream convert --to <format> [options] [file ...]

Reads agent output (files, or stdin when none or "-") and writes it in another format to stdout.

Options:
  --to <format>            output format (default: agentstream); one of: ${outputFormats.map((f) => f.name).join(", ")}
  --sse                    Server-Sent Events framing (ag-ui, ai-sdk)
  --coalesce <mode>        aaep: none | sentence (re-chunk text at sentence boundaries)
  --final-summary          codex-thread: print the final pretty JSON summary after the stream
${readingOptionsHelp}

Examples:
  codex exec --json "fix the tests" | agentstream convert --to agentstream
  agentstream convert --from claude --to agentstream session.jsonl > events.ndjson`,
  options: {
    ...readingOptions,
    to: { type: "string", default: "agentstream" },
    sse: { type: "boolean", default: false },
    coalesce: { type: "string", default: "none" },
    "final-summary": { type: "boolean", default: false },
  },
  async run(values, files, io) {
    const format = getOutputFormat(String(values.to));
    const coalesce = String(values.coalesce);
    if (coalesce !== "none" && coalesce !== "sentence") throw new AgentStreamError("usage", `--coalesce takes none or sentence, not "${coalesce}"`);
    const writerOptions: WriterOptions = { sse: values.sse === true, coalesce, finalSummary: values["final-summary"] === true };
    let out: string[] = [];
    let writer = format.create(writerOptions);
    let current: string | undefined;
    const flush = async (): Promise<void> => {
      if (out.length === 0) return;
      const text = out.join("");
      out = [];
      await io.stdout.write(text);
    };
    const runs = await readInputs(files, io, values as ReadingValues, {
      onEvent(event, input) {
        if (current !== undefined && current !== input) {
          // Each input is its own stream: close the previous writer's output first.
          out.push(writer.end());
          writer = format.create(writerOptions);
        }
        current = input;
        const text = writer.write(event);
        if (text.length > 0) out.push(text);
      },
      onChunk: flush,
    });
    out.push(writer.end());
    await flush();
    return readingStatus(runs, values as ReadingValues);
  },
};
