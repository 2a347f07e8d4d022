// DOM helpers for every panel. Text goes in only through textContent: a kernel name such as
// `<img src=x onerror=...>` stays text.

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

/** A definition list of label/value pairs. */
export function dl(rows: [string, string][]): HTMLElement {
  const list = el("dl");
  for (const [k, v] of rows) list.append(el("dt", k), el("dd", v));
  return list;
}

/** A colour of the VS Code theme (a CSS variable the webview defines), or `fallback` outside VS Code. */
export function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}
