// The benchmark panel's page, without the vscode API so tests can load it in a plain browser:
// CSP default-src 'none'; the one script and the one style block run only with this load's nonce.

const STYLE = `
body { color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 16px 24px; }
h1 { font-size: 1.3em; font-family: var(--vscode-editor-font-family); }
h2 { font-size: 1.05em; margin: 4px 0; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; margin: 0 0 8px; }
dt { opacity: 0.7; } dd { margin: 0; font-family: var(--vscode-editor-font-family); }
table { border-collapse: collapse; margin: 12px 0; font-family: var(--vscode-editor-font-family); }
th, td { padding: 3px 10px; text-align: right; border-bottom: 1px solid var(--vscode-editorWidget-border, #444); }
th:first-child, td:first-child { text-align: left; }
.ok { color: var(--vscode-testing-iconPassed, #73c991); } .pending { color: var(--vscode-descriptionForeground, #9d9d9d); } .bad { color: var(--vscode-errorForeground, #f14c4c); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 16px; }
.canvas { position: relative; height: 260px; }
`;

/** `nonce`: fresh random bytes per load (base64); `cspSource`: the webview's resource origin. */
export function panelHtml(cspSource: string, scriptUri: string, nonce: string): string {
  const csp = [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Benchmark</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<div id="root"><p>Loading…</p></div>
<script nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}
