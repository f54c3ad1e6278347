/** Builds export pages for the browser tests with the CLI (in-process) and opens them in a watched page. */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { run } from "../../../src/cli/run.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { repoRoot } from "../../helpers/shared.ts";

/** Screenshots and pages the browser tests write (git ignores it): look at them. */
export const artifacts = join(repoRoot, "test/.artifacts");

/** Builds the front end when this checkout has not yet. */
export function ensureWebBuilt(): void {
  if (!existsSync(join(repoRoot, "dist/web/app.js"))) execFileSync(process.execPath, [join(repoRoot, "scripts/build-web.mjs")]);
}

/** Runs `agentstream html` on `input` (a path, or NDJSON text on stdin) into `dir`; returns the pages' paths. */
export async function exportPages(
  input: { path: string } | { stdin: string },
  dir: string,
  extra: readonly string[] = [],
): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const io = "stdin" in input ? fakeIo({ stdin: input.stdin }) : fakeIo();
  const args = ["html", "-q", "-o", `${dir}/`, ...extra, ...("path" in input ? [input.path] : [])];
  const code = await run(args, io);
  if (code !== 0) throw new Error(`agentstream html exited ${code}: ${io.err()}`);
  return readdirSync(dir).map((name) => join(dir, name));
}

/** What a page did that it must not: errors, CSP violations, dialogs, requests other than its own file. */
export interface Watch {
  readonly errors: string[];
  readonly dialogs: string[];
  readonly requests: string[];
  violations(): Promise<string[]>;
}

/** A fresh page in `browser` that records everything it should not do. */
export async function watchedPage(browser: Browser, width: number): Promise<{ page: Page; watch: Watch }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const dialogs: string[] = [];
  const requests: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("request", (request) => {
    if (!request.url().startsWith("file://") || !request.url().endsWith(".html")) requests.push(request.url());
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener("securitypolicyviolation", (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  const violations = (): Promise<string[]> => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  return { page, watch: { errors, dialogs, requests, violations } };
}

/** Opens an export page and waits until the whole session is on it (it is appended in batches). */
export async function openExport(page: Page, file: string): Promise<void> {
  await page.goto(`file://${file}`);
  await page.waitForSelector('#agentstream[data-state="ended"]', { state: "attached" });
}
