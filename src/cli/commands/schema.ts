import { formatSpecs, getFormatSpec } from "../../schema/formats.ts";
import type { Command } from "../command.ts";
import { EXIT } from "../command.ts";

export const schema: Command = {
  name: "schema",
  summary: "print the JSON Schema (2020-12) of a format",
  help: `Usage: agentstream schema [format]

Prints the JSON Schema 2020-12 of one record of the format (default: agentstream).
Formats: ${formatSpecs.map((f) => f.name).join(", ")}.`,
  options: {},
  async run(_values, positionals, io) {
    const spec = getFormatSpec(positionals[0] ?? "agentstream");
    await io.stdout.write(`${JSON.stringify(spec.schema, null, 2)}\n`);
    return EXIT.ok;
  },
};
