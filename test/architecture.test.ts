/**
 * The layering the architecture doc promises, checked on the source: the core runs in browsers
 * (no Node-only imports outside the CLI), the model imports nothing, and imports flow one way.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers/shared.ts";

const src = join(repoRoot, "src");
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}
const sources = files(src).map((path) => ({ path: relative(src, path), text: readFileSync(path, "utf8") }));
const importsOf = (text: string): string[] =>
  [...text.matchAll(/^\s*(?:import|export)[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1] as string);

describe("architecture", () => {
  it("no Node-only import outside src/cli, src/run, src/usage and src/server (the core runs in browsers)", () => {
    const nodeOnly = ["cli/", "run/", "usage/", "server/"];
    const offenders = sources.filter(
      (f) => !nodeOnly.some((folder) => f.path.startsWith(folder)) && importsOf(f.text).some((i) => i.startsWith("node:")),
    );
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it("the model imports nothing from the rest of src", () => {
    const offenders = sources.filter((f) => f.path.startsWith("model/") && importsOf(f.text).some((i) => i.startsWith("..")));
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it("nothing outside src/cli imports the CLI, and the library entry does not either", () => {
    const offenders = sources.filter((f) => !f.path.startsWith("cli/") && importsOf(f.text).some((i) => /(^|\/)cli\//.test(i)));
    expect(offenders.map((f) => f.path)).toEqual([]);
  });

  it("src/usage (layer 9, Node) reads logs itself: it takes from the model, the wire readers and the views' width and sanitizer, never from the CLI or the runner", () => {
    const allowed = ["model/", "errors.ts", "dialect/json.ts", "views/shared/", "usage/"];
    const offenders: string[] = [];
    for (const file of sources.filter((f) => f.path.startsWith("usage/"))) {
      for (const specifier of importsOf(file.text).filter((i) => i.startsWith("."))) {
        const target = relative(src, join(src, file.path, "..", specifier));
        if (!allowed.some((ok) => target.startsWith(ok))) offenders.push(`${file.path} → ${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("the library entry does not reach the Node-only runner (agentstream/run is its own entry)", () => {
    const entry = sources.find((f) => f.path === "index.ts");
    expect(importsOf(entry?.text ?? "").filter((i) => i.includes("run/"))).toEqual([]);
  });

  it("the server imports the core and nothing of the CLI or the views (the page is built in the browser)", () => {
    const offenders = sources
      .filter((f) => f.path.startsWith("server/"))
      .flatMap((f) =>
        importsOf(f.text)
          .filter((i) => i.startsWith(".") && /(^|\/)(cli|views|run)\//.test(i))
          .map((i) => `${f.path} → ${i}`),
      );
    expect(offenders).toEqual([]);
  });

  it("formats and the layers under them import only from their own line or above (docs/architecture.md)", () => {
    // Layer of each folder this rule covers, and the folders each may import from.
    const allowed: Record<string, readonly string[]> = {
      "framing/": ["model/", "errors.ts", "framing/"],
      "encoding/": ["model/", "errors.ts", "framing/", "encoding/"],
      "validation/": ["model/", "errors.ts", "framing/", "validation/"],
      "formats/": ["model/", "errors.ts", "framing/", "dialect/", "encoding/", "validation/", "formats/", "agents/"],
    };
    // The encoders' secret safety net shares the redaction stage's credential key list; it moves
    // under the stages when the key list moves to a lower layer.
    const known = new Set(["encoding/redact.ts → stages/redact/redact-text.ts"]);
    const offenders: string[] = [];
    for (const file of sources) {
      const layer = Object.keys(allowed).find((prefix) => file.path.startsWith(prefix));
      if (layer === undefined) continue;
      for (const specifier of importsOf(file.text).filter((i) => i.startsWith("."))) {
        const target = relative(src, join(src, file.path, "..", specifier));
        const edge = `${file.path} → ${target}`;
        if (!(allowed[layer] ?? []).some((ok) => target.startsWith(ok)) && !known.has(edge)) offenders.push(edge);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("the framing core knows nothing about agents", () => {
    const offenders = sources.filter(
      (f) => f.path.startsWith("framing/") && importsOf(f.text).some((i) => i.includes("dialect") || i.includes("pipeline/")),
    );
    expect(offenders.map((f) => f.path)).toEqual([]);
  });
});
