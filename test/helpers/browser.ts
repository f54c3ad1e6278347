/**
 * The browser for the web view's tests: Debian's chromium driven by playwright-core (no browser
 * download). Suites that need it skip with one line when it is absent (`hasBrowser`).
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Where Debian puts chromium; AGENTSTREAM_CHROMIUM overrides it. */
const chromiumPath = process.env.AGENTSTREAM_CHROMIUM ?? "/usr/bin/chromium";

/** True when chromium is installed (scripts/install-test-deps.sh installs it). */
export const hasBrowser = existsSync(chromiumPath);

/** The line a suite prints when it skips for want of chromium. */
export const noBrowserReason = `chromium not found at ${chromiumPath} (scripts/install-test-deps.sh installs it): browser tests skipped`;

/** Launches headless chromium; close it in afterAll. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // No sandbox inside containers where user namespaces are off; the pages are our own fixtures.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}
