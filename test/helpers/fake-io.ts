import type { CliIo } from "../../src/cli/io.ts";
import { readFileSync, statSync } from "node:fs";

export interface FakeIo extends CliIo {
  out(): string;
  err(): string;
}

/** An in-memory CliIo: stdin from a string, stdout/stderr captured, files from disk. */
export function fakeIo(
  options: { stdin?: string | Uint8Array; stdinTTY?: boolean; stdoutTTY?: boolean; stderrTTY?: boolean; env?: Record<string, string> } = {},
): FakeIo {
  let out = "";
  let err = "";
  const input = options.stdin ?? "";
  return {
    stdin: Object.assign(
      (async function* () {
        if (input.length > 0) yield typeof input === "string" ? new TextEncoder().encode(input) : input;
      })(),
      { isTTY: options.stdinTTY ?? false },
    ),
    stdout: {
      write: (t) => {
        out += t;
      },
      isTTY: options.stdoutTTY ?? false,
      columns: 80,
    },
    stderr: {
      write: (t) => {
        err += t;
      },
      isTTY: options.stderrTTY ?? false,
      columns: 80,
    },
    env: options.env ?? {},
    openFile(path) {
      const bytes = readFileSync(path);
      return (async function* () {
        for (let i = 0; i < bytes.length; i += 65536) yield bytes.subarray(i, i + 65536);
      })();
    },
    fileSize: (path) => {
      try {
        return statSync(path).size;
      } catch {
        return undefined;
      }
    },
    out: () => out,
    err: () => err,
  };
}
