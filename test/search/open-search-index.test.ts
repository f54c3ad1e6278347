import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentStreamError } from "../../src/errors.ts";
import {
  type MatchRange,
  openSearchIndex,
  SEARCH_FIELDS,
  type SearchField,
  type SearchIndex,
  type SearchIndexOptions,
  type SearchQuery,
  type SearchResult,
  type SearchStatus,
} from "../../src/search/index.ts";
import { tempDir } from "../helpers/temp.ts";
import { answer, prompt, twoSessions } from "./sessions.ts";

const open: SearchIndex[] = [];
afterEach(() => {
  for (const index of open.splice(0)) index.close();
});

function indexOf(paths: string[], cacheDir: SearchIndexOptions["cacheDir"] = tempDir("search-cache")): SearchIndex {
  const index = openSearchIndex({ env: {}, paths, cacheDir });
  open.push(index);
  return index;
}

/** Each hit as `session field: the matched texts`. */
function found(index: SearchIndex, query: SearchQuery): string[] {
  const result: SearchResult = index.search(query);
  const matched = (snippet: string, ranges: readonly MatchRange[]) => ranges.map(([a, b]) => snippet.slice(a, b)).join(",");
  return result.hits.map((hit) => {
    const field: SearchField = hit.field;
    const status: SearchStatus = hit.status;
    expect(SEARCH_FIELDS).toContain(field);
    expect(status).toBe("unfinished");
    return `${hit.sessionId} ${field}: ${matched(hit.snippet, hit.ranges)}`;
  });
}

describe("openSearchIndex", () => {
  it("finds words and phrases, case-insensitive, newest first, identifiers inside longer tokens", () => {
    const tree = twoSessions();
    const index = indexOf([tree.root]);
    const report = index.update();
    expect(report).toMatchObject({ added: 2, changed: 0, unchanged: 0, removed: 0, sessions: 2 });
    expect(found(index, { text: "MIGRATION" })).toEqual(["bbbb-2222 answer: migration", "bbbb-2222 prompt: migration"]);
    // `formatDue` inside `this.formatDue(x)`, in the edit's input and the answer; the reasoning only when asked.
    expect(found(index, { text: "formatdue" })).toEqual(["aaaa-1111 answer: formatDue", "aaaa-1111 input: formatDue,formatDue"]);
    expect(found(index, { text: "formatDue", reasoning: true })).toContain("aaaa-1111 reasoning: formatDue");
    expect(found(index, { text: '"time zone"' })).toEqual(["aaaa-1111 answer: Time Zone"]);
    // Words need not be next to each other; a phrase must be.
    expect(found(index, { text: "zone fixed" })).toEqual(["aaaa-1111 answer: Fixed,Zone"]);
    expect(found(index, { text: '"zone fixed"' })).toEqual([]);
    const hit = index.search({ text: "staging" }).hits[0];
    expect(hit).toMatchObject({ agent: "claude", project: "/work/api", field: "input", tool: "Bash", line: 2, status: "unfinished" });
    expect(hit?.path).toBe(join(tree.root, "projects/-work-api/bbbb-2222.jsonl"));
    expect(hit?.time).toBe("2026-11-25T09:00:02.000Z");
  });

  it("never reads user text as FTS5 syntax, and finds short words by scanning", () => {
    const index = indexOf([twoSessions().root]);
    for (const text of ['"', "OR", "NEAR(a b)", "migr*", "text:fix", "^run", "a AND", "(", '"unclosed phrase']) {
      expect(() => index.search({ text })).not.toThrow();
    }
    expect(found(index, { text: "migr*" })).toEqual([]);
    expect(found(index, { text: "OK", outputs: true })).toEqual(["bbbb-2222 output: OK"]);
  });

  it("searches tool outputs only with outputs, and a tool's name", () => {
    const index = indexOf([twoSessions().root]);
    expect(found(index, { text: "tables" })).toEqual(["bbbb-2222 answer: tables"]);
    expect(found(index, { text: "tables", outputs: true })).toEqual(["bbbb-2222 answer: tables", "bbbb-2222 output: tables"]);
    expect(found(index, { text: "bash" })).toEqual(["bbbb-2222 tool: Bash"]);
  });

  it("takes a regex, with a typed error for a bad one", () => {
    const index = indexOf([twoSessions().root]);
    expect(found(index, { regex: "format\\w+\\(x\\)" })).toEqual(["aaaa-1111 input: formatDue(x)"]);
    expect(found(index, { regex: "/Fixed:/" })).toEqual(["aaaa-1111 answer: Fixed:"]);
    expect(found(index, { regex: "/fixed:/" })).toEqual([]);
    expect(() => index.search({ regex: "(unclosed" })).toThrow(AgentStreamError);
    expect(() => index.search({ regex: "(unclosed" })).toThrow(/--regex: not a valid regular expression/);
  });

  it("narrows by facets: tool and file touched, agent, project, time, status", () => {
    const index = indexOf([twoSessions().root]);
    const edits = index.search({ tool: "edit", file: "src/auth.ts" }).hits;
    expect(edits.map((h) => [h.sessionId, h.tool, h.event])).toEqual([["aaaa-1111", "Edit", expect.any(Number)]]);
    expect(index.search({ file: "auth.ts" }).hits).toHaveLength(1);
    expect(index.search({ file: "th.ts" }).hits).toHaveLength(0);
    expect(found(index, { text: "the", file: "src/auth.ts" }).every((line) => line.startsWith("aaaa-1111"))).toBe(true);
    expect(index.search({ agents: ["codex"] }).hits).toEqual([]);
    // Facets alone: one hit per session, its first prompt.
    expect(found(index, { agents: ["claude"] })).toEqual(["bbbb-2222 prompt: ", "aaaa-1111 prompt: "]);
    expect(found(index, { project: "/work/shop" })).toEqual(["aaaa-1111 prompt: "]);
    expect(found(index, { since: Date.parse("2026-11-24T00:00:00Z") })).toEqual(["bbbb-2222 prompt: "]);
    expect(found(index, { text: "the", until: Date.parse("2026-11-21T00:00:00Z") }).every((l) => l.startsWith("aaaa"))).toBe(true);
    expect(index.search({ status: "success" }).hits).toEqual([]);
    expect(() => index.search({ limit: 0 })).toThrow(AgentStreamError);
  });

  it("orders texts with the same time, no time, or a time far off, without a clash", () => {
    const tree = twoSessions();
    const same = { session: "dddd-4444", time: "2026-11-20T10:00:00.000Z" };
    tree.write("projects/-work-same/dddd-4444.jsonl", [
      prompt(same, "wombat one"),
      answer(same, "wombat two"),
      answer(same, "wombat three", "thinking"),
    ]);
    tree.write("projects/-work-far/eeee-5555.jsonl", [prompt({ session: "eeee-5555", time: "9999-01-01T00:00:00.000Z" }, "wombat far")]);
    const index = indexOf([tree.root]);
    expect(index.update()).toMatchObject({ added: 4, failed: [] });
    expect(found(index, { text: "wombat", reasoning: true })).toEqual([
      "eeee-5555 prompt: wombat",
      "dddd-4444 reasoning: wombat",
      "dddd-4444 answer: wombat",
      "dddd-4444 prompt: wombat",
    ]);
  });

  it("pages with limit and offset", () => {
    const index = indexOf([twoSessions().root]);
    const all = index.search({ text: "the", limit: 100 });
    expect(all.more).toBe(false);
    const first = index.search({ text: "the", limit: 2 });
    expect(first.more).toBe(true);
    const second = index.search({ text: "the", limit: 2, offset: 2 });
    expect([...first.hits, ...second.hits]).toEqual(all.hits.slice(0, 4));
  });

  it("updates from what changed: an appended line is found without reading the other files again", () => {
    const tree = twoSessions();
    const cache = tempDir("search-cache");
    const first = indexOf([tree.root], cache);
    first.update();
    first.close();
    open.length = 0;
    const again = indexOf([tree.root], cache);
    expect(again.update()).toMatchObject({ added: 0, changed: 0, unchanged: 2, removed: 0 });
    tree.append("projects/-work-api/bbbb-2222.jsonl", [
      prompt({ session: "bbbb-2222", time: "2026-11-25T09:10:00.000Z", cwd: "/work/api" }, "now roll back the quokka table"),
    ]);
    expect(again.update()).toMatchObject({ added: 0, changed: 1, unchanged: 1, removed: 0, sessions: 2 });
    expect(found(again, { text: "quokka" })).toEqual(["bbbb-2222 prompt: quokka"]);
    tree.write("projects/-work-new/cccc-3333.jsonl", [
      answer({ session: "cccc-3333", time: "2026-11-26T00:00:00.000Z" }, "a quokka again"),
    ]);
    rmSync(join(tree.root, "projects/-work-shop/aaaa-1111.jsonl"));
    expect(again.update()).toMatchObject({ added: 1, changed: 0, unchanged: 1, removed: 1, sessions: 2 });
    expect(found(again, { text: "quokka" })).toEqual(["cccc-3333 answer: quokka", "bbbb-2222 prompt: quokka"]);
    expect(found(again, { text: "formatDue" })).toEqual([]);
  });

  it("searches only the files under the paths of this index, and keeps an index in memory when asked", () => {
    const one = twoSessions();
    const other = twoSessions();
    const cache = tempDir("search-cache");
    indexOf([one.root], cache).update();
    const index = indexOf([other.root], cache);
    expect(index.update()).toMatchObject({ added: 2, removed: 0 });
    expect(index.search({ text: "migration" }).hits.every((hit) => hit.path.startsWith(other.root))).toBe(true);
    const memory = indexOf([one.root], false);
    expect(memory.location).toBe(":memory:");
    expect(found(memory, { text: "quokka" })).toEqual([]);
    expect(found(memory, { text: "migration" })).toHaveLength(2);
  });
});
