/**
 * Every rule of docs/architecture.md, checked on the source. The layer table is data (LAYERS, the
 * same rows as the doc's table: a test compares them); each import, type-only ones included, goes
 * to the file's own folder, a lower layer, or a folder the row names; no import cycles; nothing
 * below layer 9 imports Node; the public entries stay browser-safe; adding a dialect or a format is
 * one folder and one registry line. Exceptions are named edges, each with its reason.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { basename, dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { agents } from "../src/agents/index.ts";
import { dialects } from "../src/dialects.ts";
import { formats } from "../src/formats/index.ts";
import { formatDialects } from "../src/formats/dialects.ts";
import { repoRoot } from "./helpers/shared.ts";

/** One row of the layer table: the files under `path` (relative to src/; a folder ends in `/`). */
interface Layer {
  layer: number;
  path: string;
  /** Folders on the same layer (or the layer-9 peers) this row may import besides its own. */
  peers?: readonly string[];
  /** When set, the only files below it this one may import, by path prefix (a stricter rule than the layer number). */
  only?: readonly string[];
  /** Below layer 9, the npm packages the row may import (none when absent); layer 9 may import any. */
  packages?: readonly string[];
}

const NODE_PEERS = ["run/", "server/", "usage/", "fleet/", "follow/", "otel/", "search/"];

/** docs/architecture.md's table, lowest first. */
const LAYERS: readonly Layer[] = [
  { layer: 1, path: "model/", only: [] },
  { layer: 1, path: "errors.ts" },
  { layer: 1, path: "version.ts", only: [] },
  { layer: 2, path: "framing/" },
  // The price table and the one rule for an estimated cost: `usage` (Node) and the summary (every view) share it.
  { layer: 2, path: "prices/", only: [] },
  // Decoders replay events a format embeds (dialect/embedded.ts), checked by the model's validator.
  { layer: 3, path: "dialect/", peers: ["validation/"] },
  { layer: 3, path: "encoding/" },
  { layer: 3, path: "validation/", packages: ["ajv"] },
  { layer: 3, path: "summary/" },
  // Agents may import one another (Cursor opens its streams as Claude does), nothing else on their line.
  { layer: 4, path: "agents/", only: ["model/", "errors.ts", "framing/", "dialect/"] },
  // A format whose wire is an agent's (codex) may share the agent family's wire types.
  { layer: 4, path: "formats/", peers: ["agents/"] },
  { layer: 5, path: "dialects.ts" },
  { layer: 5, path: "emitter.ts" },
  { layer: 6, path: "stages/" },
  { layer: 7, path: "pipeline/" },
  { layer: 8, path: "views/shared/", only: ["model/", "framing/", "summary/"] },
  { layer: 8, path: "views/terminal/", peers: ["views/shared/"] },
  { layer: 8, path: "views/transcript/", peers: ["views/shared/"] },
  // Browser-only code (DOM): the browser-safe core and its two libraries (docs/web.md).
  {
    layer: 8,
    path: "views/web/",
    peers: ["views/shared/"],
    only: ["model/", "framing/", "summary/", "pipeline/"],
    packages: ["markdown-it", "dompurify"],
  },
  { layer: 8, path: "views/html/", peers: ["views/shared/"], only: ["model/", "framing/"] },
  { layer: 8, path: "views/index.ts", peers: ["views/shared/", "views/terminal/"] },
  { layer: 8, path: "output-formats.ts", peers: ["views/transcript/"] },
  { layer: 9, path: "run/", peers: NODE_PEERS },
  { layer: 9, path: "server/", peers: NODE_PEERS },
  // Reads the agents' logs itself: the model, the wire readers and the views' width and sanitizer (docs/usage.md).
  { layer: 9, path: "usage/", only: ["model/", "errors.ts", "dialect/json.ts", "views/shared/", "prices/"] },
  // The search index (Node, SQLite): the logs `usage` finds, read through the pipeline, redacted, in the cache folder.
  { layer: 9, path: "search/", peers: ["usage/"], only: ["model/", "errors.ts", "pipeline/"] },
  { layer: 9, path: "fleet/", peers: NODE_PEERS },
  // The file follower the CLI's --follow and the server's run logs share: Node's fs, the Issue type.
  { layer: 9, path: "follow/", only: ["errors.ts"] },
  // OTLP export (Node): the configuration, the official transformer's bodies, HTTP with retries, the live batcher.
  { layer: 9, path: "otel/", only: ["model/", "errors.ts", "encoding/", "summary/", "formats/"] },
  // The MCP server (docs/mcp.md): the sessions and usage of usage/, read through the pipeline like any command.
  { layer: 9, path: "mcp/", peers: ["usage/", "search/"] },
  { layer: 9, path: "cli/", peers: [...NODE_PEERS, "mcp/"] },
  { layer: 9, path: "testing/" },
  { layer: 9, path: "index.ts" },
];

/** Imports that break a rule, by edge (`from → to`, relative to src/), each with why it stays for now. */
const EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  [
    "encoding/redact.ts → stages/redact/redact-text.ts",
    "the encoders' secret safety net shares the redaction stage's credential key list; it moves when the list moves below both",
  ],
  [
    "summary/summarize.ts → pipeline/create-event-reader.ts",
    "type-only: `summary --json` embeds the reader's counters (RecordStats, HealthStats), which are defined with the reader",
  ],
]);

/**
 * Module-level mutable variables (`let`, `var` at the top of a file) below layer 9, by `path: name`, each with why it
 * stays for now. Below layer 9 state belongs to a reader, a stage or a sink (passed in, one per reader), never to the
 * module: a value set by one caller must not change what another caller's reader does. The list only shrinks.
 */
const MODULE_STATE: ReadonlyMap<string, string> = new Map<string, string>([]);

/** `path: name` of each top-level `let` or `var` of a file. */
function moduleVariables(path: string): string[] {
  const file = ts.createSourceFile(path, readFileSync(join(src, path), "utf8"), ts.ScriptTarget.Latest);
  return file.statements.flatMap((statement) =>
    ts.isVariableStatement(statement) && (statement.declarationList.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) !== ts.NodeFlags.Const
      ? statement.declarationList.declarations.map((declaration) => `${path}: ${declaration.name.getText(file)}`)
      : [],
  );
}

/** The package's entries (package.json `exports`): what they export is public, so never a `_` file's. */
const PUBLIC_ENTRIES = ["index.ts", "run/index.ts", "testing/index.ts"];

/** Imports of a `_` file from another folder, by edge, each with why it stays for now. */
const PRIVATE_EXCEPTIONS: ReadonlyMap<string, string> = new Map<string, string>([]);

/** The entries a browser or a bundler loads: nothing they reach may import Node. */
const BROWSER_ENTRIES = ["index.ts", "testing/index.ts"];

const src = join(repoRoot, "src");
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

interface SourceFile {
  /** Relative to src/. */
  path: string;
  /** Files of src/ it imports (relative to src/), type-only, re-exports and dynamic imports included. */
  local: string[];
  /** Everything else it imports (packages, `node:` modules). */
  external: string[];
}

const sources: SourceFile[] = files(src).map((file) => {
  const imported = ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles.map((i) => i.fileName);
  return {
    path: relative(src, file),
    local: imported.filter((s) => s.startsWith(".")).map((s) => relative(src, resolve(dirname(file), s))),
    external: imported.filter((s) => !s.startsWith(".")),
  };
});
const byPath = new Map(sources.map((f) => [f.path, f]));

/** The row a file belongs to: the longest path that holds it. */
function rowOf(path: string): Layer | undefined {
  let best: Layer | undefined;
  for (const row of LAYERS) {
    const holds = row.path.endsWith("/") ? path.startsWith(row.path) : path === row.path;
    if (holds && (best === undefined || row.path.length > best.path.length)) best = row;
  }
  return best;
}

function mayImport(from: Layer, to: Layer, target: string): boolean {
  if (from === to || from.peers?.includes(to.path) === true) return true;
  if (to.layer >= from.layer) return false;
  return from.only === undefined || from.only.some((prefix) => target.startsWith(prefix));
}

const isNodeBuiltin = (specifier: string): boolean =>
  specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0] ?? "");

/** Every import cycle, as the files in one strongly connected component (Tarjan). */
function importCycles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (path: string): void => {
    index.set(path, index.size);
    low.set(path, index.get(path) ?? 0);
    stack.push(path);
    onStack.add(path);
    for (const next of byPath.get(path)?.local ?? []) {
      if (!byPath.has(next)) continue;
      if (!index.has(next)) visit(next);
      if (onStack.has(next)) low.set(path, Math.min(low.get(path) ?? 0, low.get(next) ?? 0));
    }
    if (low.get(path) !== index.get(path)) return;
    const component: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = top === path ? undefined : stack.pop()) {
      onStack.delete(top);
      component.push(top);
    }
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const file of sources) if (!index.has(file.path)) visit(file.path);
  return cycles;
}

/** The files `entry` reaches through its imports, itself included. */
function reachedFrom(entry: string): string[] {
  const seen = new Set<string>([entry]);
  for (const path of seen) for (const next of byPath.get(path)?.local ?? []) seen.add(next);
  return [...seen];
}

describe("architecture (docs/architecture.md)", () => {
  it("the doc's layer table and LAYERS list the same rows", () => {
    const doc = readFileSync(join(repoRoot, "docs/architecture.md"), "utf8");
    const rows = [...doc.matchAll(/^\| (\d+) \| (.+?) \|/gm)].flatMap(([, layer, cell]) =>
      [...(cell ?? "").matchAll(/`src\/([^`]+)`/g)].map(([, path]) => `${layer} ${path}`),
    );
    expect(rows.sort()).toEqual(LAYERS.map((row) => `${row.layer} ${row.path}`).sort());
  });

  it("every file of src/ is in a row of the table", () => {
    expect(sources.filter((f) => rowOf(f.path) === undefined).map((f) => f.path)).toEqual([]);
  });

  it("imports go to the file's own row, a lower layer, or a row it names (type-only imports count)", () => {
    const offenders: string[] = [];
    for (const file of sources) {
      const from = rowOf(file.path);
      for (const target of file.local) {
        const to = rowOf(target);
        const edge = `${file.path} → ${target}`;
        if (from !== undefined && to !== undefined && !mayImport(from, to, target) && !EXCEPTIONS.has(edge)) offenders.push(edge);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("each named exception is still needed (the list only shrinks)", () => {
    const edges = new Set(sources.flatMap((f) => f.local.map((target) => `${f.path} → ${target}`)));
    expect([...EXCEPTIONS.keys()].filter((edge) => !edges.has(edge))).toEqual([]);
  });

  it("no import cycles, type-only imports included", () => {
    expect(importCycles()).toEqual([]);
  });

  it("nothing below layer 9 imports Node (the core runs in browsers and workers)", () => {
    const offenders = sources
      .filter((f) => (rowOf(f.path)?.layer ?? 9) < 9)
      .flatMap((f) => f.external.filter(isNodeBuiltin).map((specifier) => `${f.path} → ${specifier}`));
    expect(offenders).toEqual([]);
  });

  it("below layer 9, npm packages only where the row names them (ajv for validation; markdown-it and DOMPurify for the page)", () => {
    const offenders = sources.flatMap((f) => {
      const row = rowOf(f.path);
      if (row === undefined || row.layer >= 9) return [];
      const packageOf = (specifier: string): string =>
        specifier
          .split("/")
          .slice(0, specifier.startsWith("@") ? 2 : 1)
          .join("/");
      return f.external
        .filter((specifier) => !isNodeBuiltin(specifier) && !(row.packages ?? []).includes(packageOf(specifier)))
        .map((specifier) => `${f.path} → ${specifier}`);
    });
    expect(offenders).toEqual([]);
  });

  it("the library entry and agentstream/testing reach no Node import (agentstream/run is its own entry)", () => {
    for (const entry of BROWSER_ENTRIES) {
      const offenders = reachedFrom(entry).flatMap((path) =>
        (byPath.get(path)?.external ?? []).filter(isNodeBuiltin).map((s) => `${path} → ${s}`),
      );
      expect(offenders, entry).toEqual([]);
    }
  });

  it("no module-level mutable state below layer 9 (hooks and registries are passed in, one per reader)", () => {
    const found = sources.filter((f) => (rowOf(f.path)?.layer ?? 9) < 9).flatMap((f) => moduleVariables(f.path));
    expect(found.filter((name) => !MODULE_STATE.has(name))).toEqual([]);
    // Each named one is still there (the list only shrinks).
    expect([...MODULE_STATE.keys()].filter((name) => !found.includes(name))).toEqual([]);
  });

  it("a `_name.ts` file is private to its folder: only files of that folder import it, and no entry re-exports it", () => {
    const offenders = sources.flatMap((f) =>
      f.local
        .filter((target) => basename(target).startsWith("_") && (dirname(target) !== dirname(f.path) || PUBLIC_ENTRIES.includes(f.path)))
        .map((target) => `${f.path} → ${target}`)
        .filter((edge) => !PRIVATE_EXCEPTIONS.has(edge)),
    );
    expect(offenders).toEqual([]);
  });

  it("each named exception to the private-file rule is still needed (the list only shrinks)", () => {
    const edges = new Set(sources.flatMap((f) => f.local.map((target) => `${f.path} → ${target}`)));
    expect([...PRIVATE_EXCEPTIONS.keys()].filter((edge) => !edges.has(edge))).toEqual([]);
  });

  it("nothing outside src/cli imports the CLI", () => {
    const offenders = sources.filter((f) => !f.path.startsWith("cli/") && f.local.some((target) => target.startsWith("cli/")));
    expect(offenders.map((f) => f.path)).toEqual([]);
  });
});

describe("where new things go (one folder, one registry line)", () => {
  const folders = (under: string): string[] =>
    readdirSync(join(src, under)).filter((name) => statSync(join(src, under, name)).isDirectory());
  const importedBy = (registry: string): string[] => byPath.get(registry)?.local ?? [];

  it("each agent family is one folder with an index.ts, imported by src/agents/index.ts", () => {
    for (const family of folders("agents")) {
      expect(statSync(join(src, "agents", family, "index.ts")).isFile(), family).toBe(true);
      if (family !== "json") expect(importedBy("agents/index.ts"), family).toContain(`agents/${family}/index.ts`);
    }
  });

  it("the dialect registry lists every agent once, after the formats' decoders, with json last", () => {
    const names = dialects.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    const first = names.indexOf(agents[0]?.name ?? "");
    expect(names.slice(first, first + agents.length)).toEqual(agents.map((a) => a.name));
    expect(names.at(-1)).toBe("json");
  });

  it("each format is one folder named after it, with an index.ts, and one line of src/formats/index.ts", () => {
    for (const name of folders("formats")) {
      expect(statSync(join(src, "formats", name, "index.ts")).isFile(), name).toBe(true);
      expect(importedBy("formats/index.ts"), name).toContain(`formats/${name}/index.ts`);
    }
    expect(formats.map((f) => f.name).sort()).toEqual(folders("formats").sort());
  });

  it("the formats read are listed for detection as the format registry has them (src/formats/dialects.ts)", () => {
    expect(formatDialects).toEqual(formats.flatMap((format) => (format.dialect === undefined ? [] : [format.dialect])));
    expect(importedBy("dialects.ts")).not.toContain("formats/index.ts");
  });
});

/**
 * The shipped code leaves V8 and the process's end to Node (issue #29): no V8 flags set from inside the process
 * (Node's docs warn that `setFlagsFromString` may crash or do nothing), no code cache kept by hand, and no
 * `process.exit` cutting off what a command left pending (a command closes what it opened, and the process ends by
 * itself). Only code counts: comments and strings in prose are skipped by the scanner.
 */
describe("the process is Node's own (no V8 flags, no hand-kept code cache, no early exit)", () => {
  /** The only `process.exit` calls (one in each file), each where nothing is left to finish. */
  const EXITS: Readonly<Record<string, string>> = {
    "cli/bin.ts": "the reader closed our standard output (EPIPE): nothing more can be written",
    "cli/node-io.ts": "a second interrupt: the person asked twice to stop now",
  };
  const V8_CONTROL = new Set([
    "setFlagsFromString",
    "setFlags",
    "cachedData",
    "createCachedData",
    "produceCachedData",
    "enableCompileCache",
  ]);
  const V8_MODULES = new Set(["v8", "node:v8", "vm", "node:vm"]);

  /** The nodes of a file's syntax tree (comments are not nodes). */
  function nodes(file: string): ts.Node[] {
    const out: ts.Node[] = [];
    const visit = (node: ts.Node): void => {
      out.push(node);
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, readFileSync(join(src, file), "utf8"), ts.ScriptTarget.Latest, true));
    return out;
  }
  const parsed = sources.map((f) => ({ path: f.path, nodes: nodes(f.path) }));

  it("sets no V8 flag and compiles no code with a cache of its own (nor loads node:v8 or node:vm)", () => {
    const offenders = parsed.flatMap(({ path, nodes }) =>
      nodes
        .filter((n) => (ts.isIdentifier(n) && V8_CONTROL.has(n.text)) || (ts.isStringLiteral(n) && V8_MODULES.has(n.text)))
        .map((n) => `${path}: ${(n as ts.Identifier | ts.StringLiteral).text}`),
    );
    expect(offenders).toEqual([]);
  });

  it("calls process.exit only where nothing is left to finish (the named places)", () => {
    const exits = (n: ts.Node): boolean =>
      ts.isPropertyAccessExpression(n) && n.name.text === "exit" && ts.isIdentifier(n.expression) && n.expression.text === "process";
    const calls = parsed.flatMap(({ path, nodes }) => nodes.filter(exits).map(() => path));
    expect(calls.sort()).toEqual(Object.keys(EXITS).sort());
  });
});

/**
 * A comment says why; a measured figure (a time, a before → after, a date it was measured on) goes stale with
 * the next change and belongs in docs/benchmarks.md, whose history is git's (issue #29). Comment lines are those
 * opening with `//`, `/*` or `*`, and what follows ` // ` after code. The patterns are the shapes such figures
 * took: `15 ms → 4 ms`, `~0.7 ms of every run`, `3.6–4.0 s`, `8 % less CPU`, `best of 9`, `11 pairs`, `MB/s`,
 * `on 2026-11-25`.
 */
describe("comments carry no measured figures", () => {
  const FIGURE = new RegExp(
    [
      String.raw`\d(\.\d+)? ?(ms|s|µs|MB|KB|GB|%|×)? ?(→|->) ?~?\d`,
      String.raw`\b\d+ pairs\b`,
      String.raw`\bbest of \d`,
      String.raw`\d ?[MG]B/s`,
      String.raw`\d ?% (less|more|faster|slower)`,
      String.raw`\d(\.\d+)? ?× (faster|slower)`,
      String.raw`(~|about |took )\d+(\.\d+)? ?(ms|s|µs)\b`,
      String.raw`\d+(\.\d+)?–\d+(\.\d+)? ?(ms|s|µs)\b`,
      String.raw`\d+(\.\d+)? ?(ms|s|µs) (in|of|a|per) `,
      String.raw`\bon 20\d\d-\d\d-\d\d`,
      String.raw`\(20\d\d-\d\d-\d\d, `,
    ].join("|"),
  );
  /**
   * Files other engineers were rewriting when this rule came (issue #29): each is cleaned in that rewrite. Once
   * those are merged this list should be empty.
   */
  const BEING_REWRITTEN = new Set<string>([]);

  it("no comment line in src holds a measured time, ratio or the date it was measured on", () => {
    const offenders = sources
      .filter((f) => !BEING_REWRITTEN.has(f.path))
      .flatMap(({ path }) =>
        readFileSync(join(src, path), "utf8")
          .split("\n")
          .map((line, index) => {
            const comment = /^\s*(\/\/|\/\*|\*)/.test(line) ? line : line.split(" // ").slice(1).join(" // ");
            return FIGURE.test(comment) ? `${path}:${index + 1}: ${line.trim()}` : undefined;
          })
          .filter((found) => found !== undefined),
      );
    expect(offenders).toEqual([]);
  });
});

describe("the reader's options are product words (issue #29)", () => {
  /**
   * What `ReadOptions` (and the `NdjsonOptions` it extends) may hold: each says what to read and how to report it,
   * and none changes what an event carries for one consumer only. Those are `ConsumerReading` (held strings, a view's
   * cut outputs and joined deltas), owned by the writer or view that needs them and outside the package's API.
   */
  const PRODUCT_WORDS = [
    "defaultTime",
    "detectLimit",
    "dialect",
    "duplicateKeys",
    "fields",
    "file",
    "forbiddenKeys",
    "framing",
    "includeRaw",
    "maxDepth",
    "maxLineBytes",
    "onIssue",
    "redact",
    "repair",
    "stages",
    "strict",
  ];

  function members(path: string, name: string): string[] {
    const file = ts.createSourceFile(path, readFileSync(join(src, path), "utf8"), ts.ScriptTarget.Latest, true);
    const found = file.statements.find((n): n is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(n) && n.name.text === name);
    return (found?.members ?? []).flatMap((m) => (m.name !== undefined && ts.isIdentifier(m.name) ? [m.name.text] : []));
  }

  it("ReadOptions and NdjsonOptions hold the product's words and no consumer's own reading", () => {
    const words = [
      ...members("pipeline/create-event-reader.ts", "ReadOptions"),
      ...members("framing/ndjson/create-ndjson-parser.ts", "NdjsonOptions"),
    ];
    expect(words.sort()).toEqual(PRODUCT_WORDS);
  });

  it("a consumer's own reading (and the framer's side of it) is not exported by a package entry", () => {
    for (const entry of ["index.ts", "run/index.ts", "testing/index.ts"]) {
      const text = readFileSync(join(src, entry), "utf8");
      for (const internal of ["ConsumerReading", "createEventReaderFor", "createFramingParser", "SkimOptions", "HeldStrings"]) {
        expect(new RegExp(`\\b${internal}\\b`).test(text), `${entry} exports ${internal}`).toBe(false);
      }
    }
  });
});

describe("the inner loop shares modules between test files", () => {
  /** Every test file under a folder, relative to the repository. */
  const testFiles = (dir: string): string[] =>
    readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? testFiles(join(dir, entry.name)) : entry.name.endsWith(".test.ts") ? [join(dir, entry.name)] : [],
    );

  it("a file that replaces a module (vi.mock) is listed to run isolated (vitest.config.ts MOCKING)", async () => {
    const { MOCKING } = await import("../vitest.config.ts");
    const mocking = testFiles("test").filter((file) => /\bvi\.(do)?[mM]ock\(/.test(readFileSync(join(repoRoot, file), "utf8")));
    expect([...mocking].sort()).toEqual([...MOCKING].sort());
  });
});
