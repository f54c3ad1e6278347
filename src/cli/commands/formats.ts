import { dialects } from "../../dialects.ts";
import { outputFormats } from "../../output-formats.ts";
import { formatSpecs } from "../../formats/index.ts";
import { defineCommand } from "../args.ts";
import { EXIT } from "../exit.ts";

export const formats = defineCommand({
  name: "formats",
  summary: "list the input dialects and output formats",
  usage: "formats [--json]",
  description: "Lists what agentstream reads (--from) and writes (--to), and which formats have a schema.",
  options: { json: { type: "boolean", default: false, description: "print the lists as JSON" } },
  async run({ values, io }) {
    const inputs = dialects.map((d) => ({ name: d.name, description: d.description }));
    const outputs = outputFormats.map((f) => ({
      name: f.name,
      description: f.description,
      mediaType: f.mediaType,
      schema: formatSpecs.some((s) => s.name === f.name),
    }));
    if (values.json) {
      await io.stdout.write(
        `${JSON.stringify({ inputs: [{ name: "auto", description: "detect the dialect from the first records" }, ...inputs], outputs }, null, 2)}\n`,
      );
      return EXIT.ok;
    }
    const width = Math.max(...[...inputs, ...outputs].map((x) => x.name.length)) + 2;
    const lines = ["Input dialects (--from):", `  ${"auto".padEnd(width)}detect the dialect from the first records`];
    for (const d of inputs) lines.push(`  ${d.name.padEnd(width)}${d.description}`);
    lines.push("", "Output formats (--to):");
    for (const f of outputs) lines.push(`  ${f.name.padEnd(width)}${f.description}${f.schema ? " [schema]" : ""}`);
    await io.stdout.write(`${lines.join("\n")}\n`);
    return EXIT.ok;
  },
});
