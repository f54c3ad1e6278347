import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { commands, run } from "../../src/cli/run.ts";
import { chooseMode } from "../../src/cli/commands/render.ts";
import { VERSION } from "../../src/version.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const example = join(repoRoot, "examples/claude-code-session.ndjson");

describe("agentstream CLI (in-process)", () => {
  it("prints help instead of waiting when stdin is a terminal and there are no arguments", async () => {
    const io = fakeIo({ stdinTTY: true });
    expect(await run([], io)).toBe(0);
    expect(io.out()).toMatch(/Usage: agentstream <command>/);
  });

  it("--version matches package.json", async () => {
    const io = fakeIo();
    expect(await run(["--version"], io)).toBe(0);
    expect(io.out().trim()).toBe(VERSION);
    expect(JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version).toBe(VERSION);
  });

  it.each(["render", "convert", "summary", "validate", "schema", "formats"])("%s --help", async (command) => {
    const io = fakeIo();
    expect(await run([command, "--help"], io)).toBe(0);
    expect(io.out()).toMatch(new RegExp(`Usage: agentstream ${command}`));
  });

  it("unknown command and unknown option are usage errors (exit 2) with a hint", async () => {
    const io = fakeIo();
    expect(await run(["sumary"], io)).toBe(2);
    expect(io.err()).toMatch(/did you mean "summary"/);
    const io2 = fakeIo();
    expect(await run(["summary", "--nope"], io2)).toBe(2);
    expect(io2.err()).toMatch(/summary --help/);
    const io3 = fakeIo();
    expect(await run(["convert", "--to", "nope"], io3)).toBe(2);
    expect(io3.err()).toMatch(/known: agentstream/);
    const io4 = fakeIo();
    expect(await run(["summary", "--from", "nope"], io4)).toBe(2);
    expect(io4.err()).toMatch(/unknown dialect "nope"/);
  });

  it("a missing file is an I/O error (exit 3)", async () => {
    const io = fakeIo();
    expect(await run(["summary", "/nonexistent/file.jsonl"], io)).toBe(3);
    expect(io.err()).toMatch(/cannot read \/nonexistent\/file.jsonl/);
  });

  it("convert --to agentstream --from json keeps every record as an opaque event; diagnostics go to stderr as file:line: code", async () => {
    const io = fakeIo({ stdin: 'banner\n{"a":1}\n{"broken":\n{"b":[2]}\n' });
    expect(await run(["convert", "--to", "agentstream", "--from", "json"], io)).toBe(0);
    const lines = io
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((e) => e.type)).toEqual(["text", "unknown", "unknown"]);
    expect(lines.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(lines[1].raw).toEqual({ a: 1 });
    expect(io.err()).toMatch(/^<stdin>:3: invalid-json: not valid JSON: .+\n$/);
  });

  it("--strict turns the first input issue into exit 1", async () => {
    const io = fakeIo({ stdin: '{"a":1}\n{"broken":\n' });
    expect(await run(["convert", "--strict"], io)).toBe(1);
    expect(io.err()).toMatch(/invalid-json/);
  });

  it("summary --json on any NDJSON has the whole contract, with null for what the input does not carry", async () => {
    const io = fakeIo({ stdin: 'hello\n{"x":1}\n\n{"y":\n' });
    // No dialect is recognised: the summary is still printed, and the exit status says nothing was understood.
    expect(await run(["summary", "--json"], io)).toBe(4);
    expect(io.err()).toMatch(/^<stdin>: no agent dialect recognised in 3 lines .*try --from <dialect>/m);
    const s = JSON.parse(io.out());
    for (const key of [
      "agent",
      "agentVersion",
      "sessionId",
      "model",
      "status",
      "error",
      "finalText",
      "toolCalls",
      "usage",
      "costUsd",
      "durationMs",
      "turns",
      "records",
      "issues",
    ])
      expect(s).toHaveProperty(key);
    expect(s.agent).toBeNull();
    expect(s.status).toBe("incomplete");
    expect(s.usage).toEqual({
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
    expect(s.records).toEqual({ total: 4, events: 0, blank: 1, text: 1, invalid: 1, tooLong: 0, tooLongBytes: 0, unknown: 1 });
    expect(s.issues).toEqual([{ line: 4, code: "invalid-json", message: expect.stringMatching(/not valid JSON/) }]);
  });

  it("convert --to agentstream output reads back as agentstream and validates", async () => {
    const io = fakeIo();
    expect(await run(["convert", example], io)).toBe(0);
    const back = fakeIo({ stdin: io.out() });
    expect(await run(["validate", "--format", "agentstream"], back)).toBe(0);
    expect(back.err()).toMatch(/^valid: \d+ records checked, 0 issues/);
    const again = fakeIo({ stdin: io.out() });
    expect(await run(["convert"], again)).toBe(0);
    expect(again.out()).toBe(io.out());
  });

  it("validate --format agentstream rejects schema and sequence violations (exit 1)", async () => {
    const bad = [
      '{"v":1,"seq":0,"type":"message.delta","messageId":"m","text":"hi","position":0}',
      '{"v":1,"seq":2,"type":"tool.completed","toolCallId":"t"}',
      '{"v":1,"seq":3,"type":"nope"}',
    ].join("\n");
    const io = fakeIo({ stdin: `${bad}\n` });
    expect(await run(["validate", "--format", "agentstream"], io)).toBe(1);
    expect(io.err()).toMatch(/<stdin>:1: out-of-order: message.delta for message "m", which never started/);
    expect(io.err()).toMatch(/<stdin>:2: schema-mismatch: event must have required property 'isError'/);
    expect(io.err()).toMatch(/<stdin>:3: schema-mismatch: type must be one of/);
  });

  it("schema prints a JSON Schema 2020-12 identical to the shipped schema file", async () => {
    const io = fakeIo();
    expect(await run(["schema", "agentstream"], io)).toBe(0);
    const printed = JSON.parse(io.out());
    expect(printed.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(JSON.parse(readFileSync(join(repoRoot, "schema/agentstream.schema.json"), "utf8"))).toEqual(printed);
  });

  it("chooses the render mode from --mode, NO_COLOR, FORCE_COLOR, CLICOLOR, TERM=dumb and isTTY", () => {
    const tty = { isTTY: true, write() {} };
    const pipe = { isTTY: false, write() {} };
    expect(chooseMode(undefined, { env: {}, stdout: tty })).toBe("full");
    expect(chooseMode(undefined, { env: {}, stdout: pipe })).toBe("none");
    expect(chooseMode(undefined, { env: { NO_COLOR: "1" }, stdout: tty })).toBe("none");
    expect(chooseMode(undefined, { env: { TERM: "dumb" }, stdout: tty })).toBe("none");
    expect(chooseMode(undefined, { env: { FORCE_COLOR: "1" }, stdout: pipe })).toBe("basic");
    expect(chooseMode(undefined, { env: { CLICOLOR_FORCE: "1" }, stdout: pipe })).toBe("basic");
    expect(chooseMode(undefined, { env: { CLICOLOR: "0" }, stdout: tty })).toBe("none");
    expect(chooseMode("basic", { env: { NO_COLOR: "1" }, stdout: tty })).toBe("basic");
    expect(() => chooseMode("rainbow", { env: {}, stdout: tty })).toThrow(/--mode takes full, basic or none/);
  });

  it("shows a progress line on stderr for a long input only when stderr is a terminal", async () => {
    const dir = tempDir("cli");
    const big = join(dir, "big.ndjson");
    writeFileSync(big, '{"type":"x","pad":"'.concat("a".repeat(200), '"}\n').repeat(30_000));
    const slowIo = (tty: boolean) => {
      const io = fakeIo({ stderrTTY: tty });
      const open = io.openFile.bind(io);
      return Object.assign(io, {
        openFile: (path: string) =>
          (async function* () {
            for await (const chunk of open(path)) {
              await new Promise((r) => setTimeout(r, 2)); // a slow disk, so the line redraws
              yield chunk;
            }
          })(),
      });
    };
    const tty = slowIo(true);
    expect(await run(["summary", "--json", "--from", "json", big], tty)).toBe(0);
    expect(tty.err()).toMatch(/big\.ndjson: \d+% \(/);
    const pipe = slowIo(false);
    expect(await run(["summary", "--json", "--from", "json", big], pipe)).toBe(0);
    expect(pipe.err()).toBe("");
  });
});

describe("agentstream CLI (built binary)", () => {
  const bin = join(repoRoot, "dist/cli/bin.js");
  it.skipIf(!existsSync(bin))("runs, reads stdin, and ends quietly when the reader closes the pipe", () => {
    const version = execFileSync(process.execPath, [bin, "--version"], { encoding: "utf8" });
    expect(version.trim()).toBe(VERSION);
    const many = '{"type":"x"}\n'.repeat(200_000);
    // `| head -1`: the reader closes early; we must exit without an EPIPE stack trace.
    const result = spawnSync("bash", ["-c", `node ${JSON.stringify(bin)} convert --from json | head -1`], {
      input: many,
      encoding: "utf8",
    });
    expect(result.stdout.split("\n")[0]).toMatch(/"type":"unknown"/);
    expect(result.stderr).toBe("");
  });

  // The package's `bin` is CommonJS (an ES module entry starts 5–10 ms later); `node dist/cli/bin.js` runs the same.
  const packageBin = join(repoRoot, "dist/cli/bin.cjs");
  it.skipIf(!existsSync(packageBin))("is the package's bin, a CommonJS file that runs as a program", () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin.agentstream).toBe("./dist/cli/bin.cjs");
    expect(readFileSync(packageBin, "utf8")).toMatch(/^#!\/usr\/bin\/env node\n[\s\S]*require\("\.\/bundle\/bin\.cjs"\)/);
    expect(readFileSync(bin, "utf8")).toContain('import "./bundle/bin.cjs"');
    expect(execFileSync(packageBin, ["--version"], { encoding: "utf8" }).trim()).toBe(VERSION);
    const converted = spawnSync(packageBin, ["convert", "--from", "json"], { input: '{"type":"x"}\n', encoding: "utf8" });
    expect(converted.stdout).toMatch(/"type":"unknown"/);
    expect(converted.status).toBe(0);
  });

  // scripts/build-cli.mjs: the binary is a bundle whose commands are loaded when they run, so what
  // every start pays (--help, --version, before any command) holds none of them, nor ajv.
  const bundle = join(repoRoot, "dist/cli/bundle/bin.cjs");
  it.skipIf(!existsSync(bundle))(
    "is bundled: a start loads no command, and each command is one file of its own, required when it runs",
    () => {
      const dir = dirname(bundle);
      const code = (file: string): string => readFileSync(join(dir, file), "utf8");
      // esbuild's lazy form of `import()` (`Promise.resolve().then(() => __toESM(require("./x")))`) and any other require.
      const lazy = (file: string): string[] =>
        [...code(file).matchAll(/Promise\.resolve\(\)\.then\(\(\) => __toESM\(require\("\.\/([^"]+)"\)/g)].map((m) => m[1] as string);
      const all = (file: string): string[] => [...code(file).matchAll(/\brequire\("(\.\.?\/[^"]+)"\)/g)].map((m) => m[1] as string);
      // The program requires the list of commands (run.cjs) when it runs, which requires the command named.
      expect(lazy("bin.cjs")).toEqual(["run.cjs"]);
      expect(all("bin.cjs")).toEqual(["./run.cjs"]);
      const startCode = `${code("bin.cjs")}\n${code("run.cjs")}`;
      expect(startCode).toContain("function mainHelp");
      for (const loadedLater of ["ajv/dist/compile", "createTerminalRenderer", "createServer", "@nats-io", "function summarize"])
        expect(startCode).not.toContain(loadedLater);
      const required = lazy("run.cjs");
      expect(required.length).toBe(all("run.cjs").length);
      expect(new Set(required)).toEqual(new Set(commands.map((c) => `command-${c.name}.cjs`)));
      // A command's file requires no other file of ours: it is all the command runs (Node's loader pays per module).
      for (const file of required) expect(all(file), file).toEqual([]);
      // Reading a stream needs the decoders only: `summary` and `render` hold no ajv (the event schema is compiled
      // ahead of time, src/validation/_event-validator.generated.ts) and no format's encoder or schema.
      for (const name of ["summary", "render"]) {
        const command = code(`command-${name}.cjs`);
        for (const notNeeded of [
          "ajv/dist/core.js",
          "src/formats/ag-ui/encode.ts",
          "src/formats/ag-ui/spec.ts",
          "src/formats/aaep/schema.ts",
        ])
          expect(command, `${name}: ${notNeeded}`).not.toContain(notNeeded);
        // SQLite is loaded when a session store's database is opened (src/usage/store.ts), not by every read of a file.
        expect(command, name).not.toMatch(/require\("better-sqlite3"\)|from "better-sqlite3"/);
      }
      // Nothing else: no second copy of the commands (a script compiled with a code cache of our own).
      expect(readdirSync(dir).sort()).toEqual(["bin.cjs", "run.cjs", ...required].sort());
    },
  );
});
