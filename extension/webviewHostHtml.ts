// Every panel's page, without the vscode API so tests can check it and load it in a plain browser:
// CSP default-src 'none'; the one script runs only with this load's nonce, stylesheets and any image
// come only from the webview's resource origin (the bundle folder).

export interface PageParts {
  /** The page's title (not shown: the panel's tab has its own); any text, escaped here. */
  title: string;
  /** The webview's resource origin, `webview.cspSource`. */
  cspSource: string;
  /** The panel's bundle and its stylesheets (in cascade order), as webview URIs. */
  scriptUri: string;
  styleUris: string[];
  /** Fresh random bytes per load (base64). */
  nonce: string;
}

/** `s` as HTML text: the five characters that could end the text or an attribute, as references. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function webviewHtml({ title, cspSource, scriptUri, styleUris, nonce }: PageParts): string {
  const csp = [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  const styles = styleUris.map((uri) => `<link rel="stylesheet" href="${uri}">`).join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
${styles}
</head>
<body>
<div id="root"><p>Loading…</p></div>
<script nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}
