/**
 * `npm ci` on the Node versions package.json's `engines` admits prints no engine warning: every package the lockfile
 * installs declares an engine those versions satisfy (docs/fleet.md says why the NATS client is held at 3.3.x).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers/shared.ts";

interface LockedPackage {
  readonly version?: string;
  readonly dev?: boolean;
  readonly engines?: { readonly node?: string } | readonly string[];
}

/** Dev-only packages whose engine is narrower than ours, and why they stay (a user's install never fetches them). */
const DEV_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ["node_modules/ccusage", "18.0.11 declares >=20.19.4; the comparison is pinned to it (docs/usage.md), 20.x needs a native package"],
]);

/** The lowest version `engines` admits, and the later LTS lines it admits too. */
const SUPPORTED = ["20.19.0", "22.13.0", "24.0.0"];

type Version = readonly [number, number, number];

/** A version with `x` or missing parts: the lowest it names, and how many parts were given. */
function parse(text: string): { version: Version; parts: number } {
  const parts = text
    .replace(/^v/, "")
    .split(".")
    .filter((p) => p !== "" && p !== "x" && p !== "*");
  const n = parts.map(Number);
  return { version: [n[0] ?? 0, n[1] ?? 0, n[2] ?? 0], parts: parts.length };
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** One comparator (`>=18`, `>= 18.x`, `^13.7`, `20`) against a version. */
function admits(comparator: string, v: Version): boolean {
  const [, op = "", rest = ""] = /^(>=|<=|>|<|=|\^|~)?\s*(.*)$/.exec(comparator) ?? [];
  const { version, parts } = parse(rest);
  if (parts === 0) return true; // `*`, `x` or nothing: any version
  const c = compare(v, version);
  const next: Version = parts <= 1 || op === "^" ? [version[0] + 1, 0, 0] : [version[0], version[1] + 1, 0];
  switch (op) {
    case ">=":
      return c >= 0;
    case ">":
      return c > 0;
    case "<=":
      return c <= 0;
    case "<":
      return c < 0;
    default:
      // `^V`, `~V`, `=V` and a bare (partial) version: from V up to the next major (^, or a major alone) or minor.
      return c >= 0 && (parts === 3 && op !== "^" && op !== "~" ? c === 0 : compare(v, next) < 0);
  }
}

function satisfies(range: string, version: string): boolean {
  const v = parse(version).version;
  return range.split("||").some((set) =>
    set
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
      .split(/\s+/)
      .every((comparator) => admits(comparator, v)),
  );
}

describe("the lockfile's engines", () => {
  it("the range checker reads the forms the lockfile uses", () => {
    expect(satisfies(">= 22.x", "20.19.0")).toBe(false);
    expect(satisfies(">= 18.x", "20.19.0")).toBe(true);
    expect(satisfies(">=20.19.4", "20.19.0")).toBe(false);
    expect(satisfies("^20.19.0 || ^22.13.0 || >=23.5.0", "22.13.0")).toBe(true);
    expect(satisfies("^20.19.0 || ^22.13.0 || >=23.5.0", "22.12.0")).toBe(false);
    expect(satisfies("20 || >=22", "21.0.0")).toBe(false);
    expect(satisfies("*", "20.19.0")).toBe(true);
    expect(satisfies("^10 || ^12 || ^13.7 || ^14 || >=15.0.1", "24.0.0")).toBe(true);
  });

  it("admit every Node version our engines field does, but for the dev packages named", () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(">=20.19");
    const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")) as { packages: Record<string, LockedPackage> };
    const narrower: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const node = Array.isArray(entry.engines) ? undefined : (entry.engines as { node?: string } | undefined)?.node;
      if (node === undefined || path === "") continue;
      const missed = SUPPORTED.filter((version) => !satisfies(node, version));
      if (missed.length > 0 && !(entry.dev === true && DEV_EXCEPTIONS.has(path))) {
        narrower.push(`${path} ${entry.version}: node ${node} (not ${missed.join(", ")})`);
      }
    }
    expect(narrower).toEqual([]);
  });
});
