/**
 * The one way the page builds elements: tag, classes, attributes and text. Text is always set
 * with `textContent` (agent text can never become markup here); attribute values come from our
 * own code or are plain data attributes. Only ./markdown.ts inserts HTML, and only sanitized.
 */

/** What `el` may set on an element besides its children. */
export interface ElementSpec {
  /** Space-separated class names (ours, never from agent text). */
  readonly class?: string;
  /** Text content (untrusted text goes here, never into HTML). */
  readonly text?: string;
  /** Attributes we choose (`data-*`, `aria-*`, `tabindex`, `dir`, `title`). */
  readonly attrs?: Readonly<Record<string, string>>;
}

/** Creates `<tag>` with the given classes, text and attributes, and appends the children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  spec: ElementSpec = {},
  children: readonly (Node | null | undefined)[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (spec.class !== undefined) node.className = spec.class;
  if (spec.text !== undefined) node.textContent = spec.text;
  if (spec.attrs !== undefined) for (const [name, value] of Object.entries(spec.attrs)) node.setAttribute(name, value);
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** Creates an SVG element with numeric or string attributes (geometry only; no style, no href). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Readonly<Record<string, string | number>> = {},
  children: readonly Node[] = [],
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

/** `<details>` with a summary built from `summary` (nodes or text) and a body. */
export function disclosure(
  className: string,
  summary: readonly (Node | string)[],
  body: readonly Node[],
  open = false,
): HTMLDetailsElement {
  const head = el("summary");
  head.append(...summary);
  const details = el("details", { class: className }, [head, ...body]);
  details.open = open;
  return details;
}
