/**
 * docs/api.md lists every export of the three entry points (`agentstream`, `agentstream/run`,
 * `agentstream/testing`) and nothing more, each under its entry; the exports are read with the
 * TypeScript compiler, so a type-only export counts like a value.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers/shared.ts";

const ENTRIES = {
  agentstream: "src/index.ts",
  "agentstream/run": "src/run/index.ts",
  "agentstream/testing": "src/testing/index.ts",
} as const;
type Entry = keyof typeof ENTRIES;

function exportsOf(): Record<Entry, string[]> {
  const files = Object.values(ENTRIES).map((path) => join(repoRoot, path));
  const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, allowImportingTsExtensions: true, noEmit: true, types: [] });
  const checker = program.getTypeChecker();
  const names = (path: string): string[] => {
    const source = program.getSourceFile(join(repoRoot, path));
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    return module === undefined ? [] : checker.getExportsOfModule(module).map((symbol) => symbol.name);
  };
  return {
    agentstream: names(ENTRIES.agentstream),
    "agentstream/run": names(ENTRIES["agentstream/run"]),
    "agentstream/testing": names(ENTRIES["agentstream/testing"]),
  };
}

/** The names docs/api.md documents, by entry: `### \`name\`` headings and the first cell of type tables. */
function documented(): Record<Entry, string[]> {
  const out: Record<Entry, string[]> = { agentstream: [], "agentstream/run": [], "agentstream/testing": [] };
  let entry: Entry = "agentstream";
  for (const line of readFileSync(join(repoRoot, "docs/api.md"), "utf8").split("\n")) {
    if (line.startsWith("## "))
      entry = line.includes("`agentstream/run`")
        ? "agentstream/run"
        : line.includes("`agentstream/testing`")
          ? "agentstream/testing"
          : "agentstream";
    const name = /^### `(\w+)`$/.exec(line)?.[1] ?? /^\| `(\w+)` \|/.exec(line)?.[1];
    if (name !== undefined) out[entry].push(name);
  }
  return out;
}

describe("docs/api.md", () => {
  const actual = exportsOf();
  const docs = documented();
  it.each(Object.keys(ENTRIES) as Entry[])("lists every export of %s and nothing more, each once", (entry) => {
    expect(actual[entry].length).toBeGreaterThan(0);
    expect(docs[entry].filter((name, i) => docs[entry].indexOf(name) !== i)).toEqual([]);
    expect([...docs[entry]].sort()).toEqual([...actual[entry]].sort());
  });
});
