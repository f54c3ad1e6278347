// Writes schema/<format>.schema.json from the compiled schema modules, so users outside
// TypeScript get the same JSON Schemas that `agentstream schema <format>` prints.
import { mkdirSync, writeFileSync } from "node:fs";
import { formatSpecs } from "../dist/formats/index.js";

const dir = new URL("../schema/", import.meta.url);
mkdirSync(dir, { recursive: true });
for (const spec of formatSpecs) {
  writeFileSync(new URL(`${spec.name}.schema.json`, dir), `${JSON.stringify(spec.schema, null, 2)}\n`);
}
