/**
 * The page's entry point (bundled to dist/web/app.js). Export mode reads the session embedded in
 * the file and shows it all at once; live mode (`agentstream serve`) is started by ./live.ts.
 */
import type { ExportedSession } from "../shared/exported-session.ts";
import { installKeys } from "./keys.ts";
import { SessionView } from "./session-view.ts";

function startExport(root: HTMLElement): void {
  const data = document.getElementById("agentstream-session");
  const session = JSON.parse(data?.textContent ?? "null") as ExportedSession | null;
  if (session === null) return;
  const view = new SessionView(root, { header: session.header, truncation: session.truncation });
  for (const event of session.events) view.append(event);
  view.end();
  root.querySelector(".as-header")?.after(installKeys(root));
}

const root = document.getElementById("agentstream");
if (root !== null && root.dataset.mode === "export") startExport(root);
