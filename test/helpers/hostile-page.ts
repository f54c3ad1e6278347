/**
 * Hostile text on the live page (test/server/live-page.test.ts, test/fleet/nats-serve.test.ts): the
 * payloads of ../shared/corpus/web/xss-payloads.json, one session carrying a payload in every slot
 * the page shows, and the check that nothing on the page ran, loaded or was injected.
 */
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import type { AgentEvent } from "../../src/model/events.ts";
import { sharedPath } from "./shared.ts";

/** The payloads, each as one string. */
export function xssPayloads(): { id: string; text: string }[] {
  const corpus = JSON.parse(readFileSync(sharedPath("corpus/web/xss-payloads.json"), "utf8")) as {
    payloads: { id: string; text?: string; text_repeat?: { unit: string; times: number }; json?: string }[];
  };
  return corpus.payloads.map((p) => ({
    id: p.id,
    text: p.text ?? (p.text_repeat ? p.text_repeat.unit.repeat(p.text_repeat.times) : (p.json ?? "")),
  }));
}

/** One session carrying `text` in every slot the page shows (with `everywhere` false, a long one in a few); seq from 0. */
export function hostileSessionEvents(text: string, everywhere: boolean, sessionId = "s"): AgentEvent[] {
  const small = everywhere ? text : "short";
  const input = { command: small, file_path: small, url: small, ...(JSON.parse('{"__proto__": {"polluted": true}}') as object) };
  const drafts: Record<string, unknown>[] = [
    { type: "session.started", agent: small, model: small, cwd: small, sessionId },
    { type: "message.completed", messageId: "u", role: "user", kind: "text", text },
    { type: "message.delta", messageId: "a1", role: "assistant", kind: "text", text: small },
    { type: "message.completed", messageId: "a1", role: "assistant", kind: "text", text: `${small}\n\n[link](${small}) ${small}` },
    { type: "message.completed", messageId: "r", role: "assistant", kind: "reasoning", text: small },
    { type: "tool.started", toolCallId: "t", name: small, input },
    { type: "tool.completed", toolCallId: "t", name: small, output: text, isError: true },
    {
      type: "file.changed",
      toolCallId: "t",
      changes: [{ path: small, kind: "update", diff: `--- a/${small}\n+++ b/${small}\n@@ -1 +1 @@\n-${small}\n+${small}\n` }],
    },
    { type: "plan.updated", items: [{ text: small, status: "pending" }] },
    { type: "error", scope: "session", message: small, code: small },
    { type: "notice", kind: small, level: "warning", text: small },
    { type: "text", text },
    { type: "session.completed", status: "error", error: small, finalText: small },
  ];
  const time = new Date().toISOString();
  return drafts.map((draft, seq) => ({ v: 1, seq, time, ...draft }) as unknown as AgentEvent);
}

/** Counts, from the first script on, every CSP violation (read back by {@link pageVerdict}). */
/**
 * A page of `browser` at `url` that records what must never happen on it: dialogs opened, requests
 * to anything but `origin`, and (through {@link watchCsp}) CSP violations.
 */
export async function openWatchedPage(
  browser: Browser,
  origin: string,
  url: string,
  viewport = { width: 1280, height: 900 },
): Promise<{ page: Page; dialogs: string[]; foreign: string[] }> {
  const page = await browser.newPage({ viewport });
  const dialogs: string[] = [];
  const foreign: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("request", (request) => {
    if (!request.url().startsWith(`${origin}/`)) foreign.push(request.url());
  });
  await watchCsp(page);
  await page.goto(url);
  return { page, dialogs, foreign };
}

async function watchCsp(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
}

/** What must stay empty on a page showing hostile text: ran, polluted, injected, handlers, foreign URLs, CSP violations, images. */
export async function pageVerdict(page: Page): Promise<object> {
  return page.evaluate(() => {
    const root = document.getElementById("agentstream") as HTMLElement;
    const injected = Array.from(root.querySelectorAll("script, iframe, object, embed, form, style, base, meta, link, svg [onload]"))
      .map((e) => e.tagName)
      .filter((tag) => tag !== "svg");
    const handlers = Array.from(root.querySelectorAll("*")).flatMap((e) =>
      Array.from(e.attributes)
        .filter((a) => a.name.startsWith("on") || a.name === "srcdoc" || a.name === "style")
        .map((a) => `${e.tagName} ${a.name}`),
    );
    const urls = Array.from(root.querySelectorAll("[href], [src]"))
      .map((e) => e.getAttribute("href") ?? e.getAttribute("src") ?? "")
      .filter((u) => !["http:", "https:", "mailto:"].includes(new URL(u, location.href).protocol));
    const w = window as unknown as { __xss?: unknown; __csp: string[] };
    return {
      xss: w.__xss,
      polluted: ({} as { polluted?: unknown }).polluted,
      injected,
      handlers,
      urls,
      csp: w.__csp,
      images: root.querySelectorAll("img").length,
    };
  });
}

/** The verdict of a page where nothing happened. */
export const INERT = { xss: undefined, polluted: undefined, injected: [], handlers: [], urls: [], csp: [], images: 0 };
