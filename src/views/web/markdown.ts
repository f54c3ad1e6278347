/**
 * Assistant text as Markdown, safely: markdown-it with `html: false` (raw HTML in agent text stays
 * text), links only to http(s), mailto or relative targets, no images (a remote image is a beacon),
 * then DOMPurify on the result with a small allow-list as a second wall. This is the only place the
 * page parses HTML.
 */
import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import { visible } from "./text.ts";

const markdown = new MarkdownIt({ html: false, linkify: false, breaks: false });
markdown.disable(["image"]);
markdown.validateLink = isSafeLink;

/** http(s) and mailto, or a relative link (no scheme at all), after trimming what URL parsing ignores. */
function isSafeLink(url: string): boolean {
  // eslint-disable-next-line no-control-regex
  const trimmed = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, "").toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(trimmed)?.[1];
  if (scheme === undefined) return !trimmed.startsWith("//");
  return scheme === "http" || scheme === "https" || scheme === "mailto";
}

const ALLOWED_TAGS = [
  "p",
  "br",
  "hr",
  "em",
  "strong",
  "s",
  "del",
  "code",
  "pre",
  "blockquote",
  "ul",
  "ol",
  "li",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "a",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
];

/**
 * Links open elsewhere and leak nothing; an href with another scheme that DOMPurify let through goes. Done on the
 * sanitized fragment rather than in a DOMPurify hook: hooks live on DOMPurify's one shared instance, this on our output.
 */
function fixLinks(fragment: DocumentFragment): void {
  for (const link of Array.from(fragment.querySelectorAll("a"))) {
    const href = link.getAttribute("href");
    if (href === null || !isSafeLink(href)) link.removeAttribute("href");
    link.setAttribute("rel", "noopener noreferrer nofollow");
    link.setAttribute("target", "_blank");
  }
}

/** Fills `into` with `text` rendered as sanitized Markdown (hidden characters made visible first). */
export function renderMarkdown(text: string, into: HTMLElement): void {
  const html = markdown.render(visible(text));
  const clean = DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ["href", "title", "start", "align"],
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
  fixLinks(clean);
  into.replaceChildren(clean);
}
