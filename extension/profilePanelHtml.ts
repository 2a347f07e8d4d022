// The profile panel's page, without the vscode API so tests can check it and load it in a plain
// browser: CSP default-src 'none'; the one script and the one style block run only with this load's nonce.

const STYLE = `
body { color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 16px 24px; }
h1 { font-size: 1.2em; font-family: var(--vscode-editor-font-family); word-break: break-all; }
h2 { font-size: 1.05em; margin: 16px 0 4px; } h3 { font-size: 0.95em; margin: 4px 0; font-weight: normal; opacity: 0.85; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; margin: 0 0 8px; }
dt { opacity: 0.7; } dd { margin: 0; font-family: var(--vscode-editor-font-family); }
.duration { font-size: 1.3em; } .toolbar { display: flex; gap: 12px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
.file, .kernel { font-family: var(--vscode-editor-font-family); opacity: 0.85; word-break: break-all; }
select { background: var(--vscode-dropdown-background); color: var(--vscode-dropdown-foreground); border: 1px solid var(--vscode-dropdown-border); max-width: 100%; }
table { border-collapse: collapse; margin: 8px 0; font-family: var(--vscode-editor-font-family); }
th, td { padding: 2px 10px; text-align: right; border-bottom: 1px solid var(--vscode-editorWidget-border, #444); }
th:first-child, td:first-child, td:nth-child(2) { text-align: left; }
tr.limiter td { color: var(--vscode-charts-orange, #d18616); font-weight: bold; } tr.same td { opacity: 0.5; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 16px; }
.canvas { position: relative; }
ol.findings { padding-left: 20px; } .finding p { margin: 2px 0 10px; opacity: 0.9; }
.finding-head { display: flex; gap: 8px; align-items: baseline; }
.badge { font-size: 0.8em; padding: 0 4px; border: 1px solid currentColor; border-radius: 3px; }
.opt .badge { color: var(--vscode-charts-orange, #d18616); } .wrn .badge, .err .badge { color: var(--vscode-errorForeground, #f14c4c); }
.speedup { color: var(--vscode-charts-green, #89d185); }
.compare-heads { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.error { color: var(--vscode-errorForeground, #f14c4c); white-space: pre-wrap; } .note { opacity: 0.8; }
`;

/** `nonce`: fresh random bytes per load (base64); `cspSource`: the webview's resource origin. */
export function profilePageHtml(cspSource: string, scriptUri: string, nonce: string): string {
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
<title>Profile</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<div id="root"><p>Loading…</p></div>
<script nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}
