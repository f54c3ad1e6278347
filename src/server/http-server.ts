/**
 * `agentstream serve`'s HTTP server: node:http and six routes, no framework (the whole surface is
 * a page, two assets, two JSON lists and an SSE stream; a framework would add code to audit and
 * defaults to override, such as permissive CORS). Every request passes the guard (./security.ts)
 * before routing.
 */
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentStreamError } from "../errors.ts";
import type { WebAssets } from "./assets.ts";
import type { SessionCatalog } from "./catalog.ts";
import { LIVE_PAGE } from "./page.ts";
import { SECURITY_HEADERS, createGuard, newToken, type Guard } from "./security.ts";
import { searchAnswer, searchQueryOf } from "./search-route.ts";
import type { SearchService } from "./search-service.ts";
import { streamFeed } from "./sse-stream.ts";

/** Options for {@link startServer}. */
export interface ServerOptions {
  readonly catalog: SessionCatalog;
  readonly assets: WebAssets;
  /** The address to bind. @defaultValue "127.0.0.1" */
  readonly host?: string;
  /** 0: any free port. @defaultValue 0 */
  readonly port?: number;
  /** This start's token. @defaultValue a fresh random one */
  readonly token?: string;
  /** SSE control heartbeat period. @defaultValue 15000 */
  readonly heartbeatMs?: number;
  /** How long a viewer may refuse data before it is dropped and told to resync. @defaultValue 10000 */
  readonly stallMs?: number;
  /** Viewers streaming at once; more get 503. @defaultValue 256 */
  readonly maxViewers?: number;
  /** `GET /api/search` over the catalog's session logs (absent: that route answers 404); closed with the server. */
  readonly search?: SearchService;
}

/** A listening server. */
export interface SessionServer {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** The URL to open: the origin with the token, exchanged for a cookie on first load. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Viewers streaming now. */
  viewers(): number;
  close(): Promise<void>;
}

/** Starts listening; resolves once the port is bound. */
export async function startServer(options: ServerOptions): Promise<SessionServer> {
  const token = options.token ?? newToken();
  const host = options.host ?? "127.0.0.1";
  let guard: Guard | undefined;
  let viewers = 0;
  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) send(response, 500, "text/plain", "internal error\n");
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://agentstream.invalid");
    const verdict = (guard as Guard).check(request, url);
    if (!verdict.ok)
      return send(response, verdict.status, "text/plain", verdict.status === 401 ? "open the URL agentstream printed\n" : "");
    if (request.method !== "GET" && request.method !== "HEAD") return send(response, 405, "text/plain", "", { Allow: "GET, HEAD" });
    if (verdict.via === "url") {
      // The token leaves the address bar (and history) at once; the cookie carries it from now on.
      return send(response, 303, "text/plain", "", { Location: "/", "Set-Cookie": (guard as Guard).loginCookie });
    }
    const path = url.pathname;
    if (path === "/") return send(response, 200, "text/html; charset=utf-8", LIVE_PAGE);
    if (path === "/favicon.ico") return send(response, 204, "text/plain", "");
    if (path === "/assets/app.js") return send(response, 200, "text/javascript; charset=utf-8", options.assets.script);
    if (path === "/assets/app.css") return send(response, 200, "text/css; charset=utf-8", options.assets.css);
    if (path === "/api/sessions") return sendJson(response, await options.catalog.list());
    if (path === "/api/sources") return sendJson(response, options.catalog.sources());
    if (path === "/api/search") return answerSearch(response, url, options);
    const route = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})(\/events)?$/.exec(path);
    const feed = route === null ? undefined : await options.catalog.feed(route[1] as string);
    if (feed === undefined) return send(response, 404, "text/plain", "not found\n");
    if (route?.[2] === undefined) return sendJson(response, feed.info());
    if (viewers >= (options.maxViewers ?? 256)) return send(response, 503, "text/plain", "too many viewers\n");
    viewers++;
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value as string);
    streamFeed(feed, response, {
      ...resumePoint(request, url),
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      ...(options.stallMs === undefined ? {} : { stallMs: options.stallMs }),
      onClose: () => viewers--,
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(new AgentStreamError("io", `cannot listen on ${host}:${options.port ?? 0}: ${error.code ?? error.message}`, { cause: error })),
    );
    server.listen(options.port ?? 0, host, () => {
      server.removeAllListeners("error");
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  guard = createGuard(token, port, host);
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    origin,
    url: `${origin}/?token=${token}`,
    port,
    token,
    viewers: () => viewers,
    close() {
      options.catalog.close();
      void options.search?.close();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * `Last-Event-ID` (what EventSource sends when it reconnects by itself), else `?after=` (the page's
 * own retry after the browser gave up, since a new EventSource cannot set the header), else none.
 */
function resumePoint(request: IncomingMessage, url: URL): { after?: number } {
  const header = request.headers["last-event-id"];
  const given = (typeof header === "string" ? header : (url.searchParams.get("after") ?? "")).trim();
  return /^\d{1,15}$/.test(given) ? { after: Number(given) } : {};
}

function send(response: ServerResponse, status: number, type: string, body: string, extra: OutgoingHttpHeaders = {}): void {
  response.writeHead(status, { ...SECURITY_HEADERS, "Content-Type": type, "Content-Length": Buffer.byteLength(body), ...extra });
  response.end(response.req.method === "HEAD" ? undefined : body);
}

function sendJson(response: ServerResponse, value: unknown, status = 200): void {
  send(response, status, "application/json; charset=utf-8", JSON.stringify(value));
}

/** `GET /api/search`: the served session logs searched (./search-service.ts); a query that cannot be read is a 400. */
async function answerSearch(response: ServerResponse, url: URL, options: ServerOptions): Promise<void> {
  if (options.search === undefined) return sendJson(response, { error: "this server does not search its sessions" }, 404);
  const parsed = searchQueryOf(url);
  if ("error" in parsed) return sendJson(response, { error: parsed.error }, 400);
  const files = await options.catalog.searchable();
  const reply = await options.search.search(files, parsed.query);
  if (!reply.ok) return sendJson(response, { error: reply.message }, reply.status);
  sendJson(response, searchAnswer(reply.result, files));
}
