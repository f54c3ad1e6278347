/**
 * The page's entry point (bundled to dist/web/app.js). Export mode reads the session embedded in
 * the file and shows it all at once; live mode (`agentstream serve`) is started by ./live.ts.
 */
import type { ExportedSession } from "../shared/exported-session.ts";
import { installKeys } from "./keys.ts";
import { startLive } from "./live.ts";
import { scrollToEvent } from "./scroll-to-event.ts";
import { SessionView } from "./session-view.ts";

/** Events shown before the page first paints; the rest follow in batches of this size, one per task. */
const BATCH = 400;

function startExport(root: HTMLElement): void {
  const data = document.getElementById("agentstream-session");
  const session = JSON.parse(data?.textContent ?? "null") as ExportedSession | null;
  if (session === null) return;
  const view = new SessionView(root, { header: session.header, truncation: session.truncation });
  root.querySelector(".as-header")?.after(installKeys(root));
  const events = session.events;
  // A long session is appended in batches, each in its own task: the page paints its start at once
  // and stays responsive; `data-state="ended"` on the root says the whole session is on the page.
  const appendFrom = (start: number): void => {
    const end = Math.min(start + BATCH, events.length);
    for (let i = start; i < end; i++) view.append(events[i] as (typeof events)[number]);
    if (end < events.length) setTimeout(() => appendFrom(end), 0);
    else {
      view.end();
      // `html --at 42`, or a link to `page.html#event-42`: the page opens at that event.
      const hash = /^#event-(\d+)$/.exec(location.hash);
      const at = hash === null ? session.header.at : Number(hash[1]);
      if (at !== undefined) scrollToEvent(root, at);
    }
  };
  appendFrom(0);
}

const root = document.getElementById("agentstream");
if (root !== null && root.dataset.mode === "export") startExport(root);
if (root !== null && root.dataset.mode === "live") startLive(root);
