// The Occupancy panel's page, without the vscode API so tests can check it and load it in a plain
// browser: CSP default-src 'none'; the one script and the one style block run only with this load's nonce.

/** `nonce`: fresh random bytes per load (base64); `cspSource`: the webview's resource origin. */
export function occupancyHtml(cspSource: string, scriptUri: string, nonce: string): string {
  const csp = [
    `default-src 'none'`,
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Occupancy</title>
<style nonce="${nonce}">
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 16px 16px; }
  header { display: flex; gap: 12px; align-items: baseline; }
  h2 { font-size: 1.3em; margin: 12px 0 4px; }
  h3 { font-size: 1em; margin: 4px 0; font-weight: 600; }
  .muted { color: var(--vscode-descriptionForeground); }
  .tabs { display: flex; gap: 4px; border-bottom: 1px solid var(--vscode-panel-border); margin: 8px 0; }
  .tab { background: none; color: var(--vscode-foreground); border: none; border-bottom: 2px solid transparent; padding: 6px 12px; cursor: pointer; font: inherit; }
  .tab.active { border-bottom-color: var(--vscode-focusBorder); font-weight: 600; }
  .inputs { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0; }
  .field { display: flex; flex-direction: column; gap: 2px; font-size: 0.9em; }
  .field input { width: 9em; background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, transparent); padding: 3px 4px; }
  .summary { display: flex; flex-wrap: wrap; gap: 24px; align-items: center; margin: 8px 0 16px; }
  .big { font-size: 2.2em; font-weight: 600; }
  .limit { color: var(--vscode-charts-orange); font-weight: 600; }
  .error { color: var(--vscode-errorForeground); font-weight: 600; }
  table { border-collapse: collapse; font-size: 0.9em; }
  td, th { padding: 2px 10px; border-bottom: 1px solid var(--vscode-panel-border); text-align: left; }
  .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 16px; }
  .chart { height: 260px; display: flex; flex-direction: column; }
  .chart canvas { flex: 1; min-height: 0; }
</style>
</head>
<body>
<main id="root"></main>
<script nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}
