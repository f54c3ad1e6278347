/**
 * The import rules of docs/architecture.md for the decoder side: the decoder contract (src/dialect)
 * sits below the agents, an agent never imports a format, the registry, the pipeline or a view,
 * and adding an agent is one folder under src/agents plus one line in src/agents/index.ts.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { agents } from "../../src/agents/index.ts";
import { dialects } from "../../src/dialects.ts";
import { repoRoot } from "../helpers/shared.ts";

const src = join(repoRoot, "src");
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}
/** Every relative import (type-only ones too) of the files under `folder`, as paths relative to src/. */
function importsUnder(folder: string): { file: string; target: string }[] {
  return files(join(src, folder)).flatMap((path) => {
    const text = readFileSync(path, "utf8");
    return [...text.matchAll(/^\s*(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms)].map((m) => ({
      file: relative(src, path),
      target: relative(src, resolve(dirname(path), m[1] as string)),
    }));
  });
}

describe("decoder layering", () => {
  it("src/dialect (the decoder contract and its helpers) imports only model, errors, framing and its own line (validation)", () => {
    // embedded.ts validates events carried in a format's extension field; validation sits on dialect's line (schema/validate.ts until it moves).
    const offenders = importsUnder("dialect").filter(
      ({ target }) => !/^(model\/|errors\.ts$|framing\/|dialect\/|validation\/|schema\/validate\.ts$)/.test(target),
    );
    expect(offenders).toEqual([]);
  });

  it("an agent imports only model, errors, framing, dialect and agents (never formats, the registry, the pipeline, views or the CLI)", () => {
    // Agents may import one another's wire and helpers (Cursor opens its streams as Claude does), nothing above them.
    const offenders = importsUnder("agents").filter(({ target }) => !/^(model\/|errors\.ts$|framing\/|dialect\/|agents\/)/.test(target));
    expect(offenders).toEqual([]);
  });

  it("the registry lists every agent once, after the formats' decoders, with json last", () => {
    const names = dialects.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    const first = names.indexOf(agents[0]?.name ?? "");
    expect(names.slice(first, first + agents.length)).toEqual(agents.map((a) => a.name));
    expect(names.at(-1)).toBe("json");
  });

  it("each agent family is one folder with an index.ts", () => {
    const families = readdirSync(join(src, "agents")).filter((name) => statSync(join(src, "agents", name)).isDirectory());
    for (const family of families) expect(statSync(join(src, "agents", family, "index.ts")).isFile(), family).toBe(true);
  });
});
