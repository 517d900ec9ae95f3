// A small element builder. Text always goes in as text nodes, never as markup, so nothing the
// API returns (key names, error messages) can inject HTML.

type Attribute = string | number | boolean | null | undefined;
type Listener = (event: Event) => void;
type Props = Record<string, Attribute | Listener>;
type Child = Node | string | number | null | undefined | false;

function build<E extends Element>(element: E, props: Props, children: (Child | Child[])[]): E {
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === "function") element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, "");
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) element.append(typeof child === "number" ? String(child) : child);
  }
  return element;
}

/** An HTML element: `h("button", { type: "button", onClick }, "Save")`. */
export const h = <K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: (Child | Child[])[]) =>
  build(document.createElement(tag), props, children);

/** An SVG element. */
export const svg = (tag: string, props: Props = {}, ...children: (Child | Child[])[]) =>
  build(document.createElementNS("http://www.w3.org/2000/svg", tag), props, children);

let lastId = 0;
/** A document-unique id, for label `for`, `aria-describedby` and `aria-labelledby`. */
export const uniqueId = (prefix: string): string => `${prefix}-${++lastId}`;

/** Text only screen readers read, such as the key a repeated "Edit" button belongs to. */
export const hidden = (text: string) => h("span", { class: "visually-hidden" }, text);

/**
 * An identifier (an e-mail address, a model ID) that may break at its separators, never inside
 * a word: a line break is offered after ".", "-", "_", "/" and ":", and before "@".
 */
export const breakable = (text: string): (string | HTMLElement)[] =>
  text.split(/(?<=[.\-_/:])|(?=@)/).flatMap((part, i) => (i === 0 ? [part] : [h("wbr"), part]));
