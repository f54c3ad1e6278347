/**
 * The page's code never turns agent text into HTML but through the Markdown sanitizer, and no
 * function in src is longer than a person reads at once (120 lines). (The views' imports are checked with
 * every other layer's by test/architecture.test.ts.)
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/shared.ts";

const src = join(repoRoot, "src");
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}
const sources = files(src).map((path) => ({ path: relative(src, path), text: readFileSync(path, "utf8") }));

describe("views layout", () => {
  it("the web front end never parses agent text as HTML except through the Markdown sanitizer", () => {
    const sinks = /\.(innerHTML|outerHTML|insertAdjacentHTML)\b|document\.write|\bnew Function\b|\beval\(|createContextualFragment/;
    const offenders = sources.filter((f) => f.path.startsWith("views/web/") && sinks.test(f.text)).map((f) => f.path);
    expect(offenders).toEqual([]);
    const markdown = sources.find((f) => f.path === "views/web/markdown.ts")?.text ?? "";
    expect(markdown).toContain("html: false");
    expect(markdown).toContain("DOMPurify.sanitize");
  });

  it("no function in src is over 120 lines", () => {
    const long: string[] = [];
    for (const file of sources) {
      const tree = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
          const first = tree.getLineAndCharacterOfPosition(node.getStart(tree)).line;
          const last = tree.getLineAndCharacterOfPosition(node.getEnd()).line;
          const name = node.name !== undefined && ts.isIdentifier(node.name) ? node.name.text : `line ${first + 1}`;
          if (last - first + 1 > 120) long.push(`${file.path}:${first + 1} ${name} (${last - first + 1} lines)`);
        }
        ts.forEachChild(node, visit);
      };
      visit(tree);
    }
    expect(long).toEqual([]);
  });
});
