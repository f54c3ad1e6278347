import { formatSpecs, getFormatSpec } from "../../formats/index.ts";
import { defineCommand } from "../args.ts";
import { EXIT } from "../exit.ts";

export const schema = defineCommand({
  name: "schema",
  summary: "print the JSON Schema (2020-12) of a format",
  usage: "schema [format]",
  description: `Prints the JSON Schema 2020-12 of one record of the format (default: agentstream).
Formats: ${formatSpecs.map((f) => f.name).join(", ")}.`,
  options: {},
  async run({ positionals, io }) {
    const spec = getFormatSpec(positionals[0] ?? "agentstream");
    await io.stdout.write(`${JSON.stringify(spec.schema, null, 2)}\n`);
    return EXIT.ok;
  },
});
