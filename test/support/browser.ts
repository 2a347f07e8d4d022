// Drives code-server's workbench from Debian's Chromium. Helpers poll for state; none sleeps a fixed time.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { repoRoot } from "./codeServer";

export const chromiumFlags = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: chromiumFlags, headless: true });
}

export const resultsDir = join(repoRoot, "test-results");

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${name.replace(/[^\w.-]+/g, "_")}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Runs `fn`; on failure saves a screenshot named after the test, then rethrows. */
export async function withFailureScreenshot<T>(page: Page, name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const file = await screenshot(page, `FAILED-${name}`).catch(() => "(no screenshot)");
    throw new Error(`${err instanceof Error ? err.message : String(err)}\nscreenshot: ${file}`, {
      cause: err,
    });
  }
}

/** Opens the workbench on the served folder and waits until it is interactive. */
export async function openWorkbench(page: Page, url: string, folder: string): Promise<void> {
  await page.goto(`${url}/?folder=${encodeURIComponent(folder)}`);
  await page.waitForSelector(".monaco-workbench .part.statusbar", { timeout: 60_000 });
  await page.waitForSelector(".explorer-folders-view, .monaco-list", { timeout: 60_000 });
}

/** Runs a command by its palette title. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor();
  await page.keyboard.press("Enter");
}

/** Closes every editor and panel (none may be dirty: a save prompt would stay up) and waits until no tab is left. */
export async function closeAllEditors(page: Page): Promise<void> {
  await runCommand(page, "View: Close All Editors");
  await page.locator(".tabs-container .tab").first().waitFor({ state: "detached", timeout: 10_000 });
}

/** Opens a workspace file through Quick Open and waits for its editor tab. */
export async function openFile(page: Page, relativePath: string): Promise<void> {
  await page
    .locator(".monaco-workbench")
    .click({ position: { x: 600, y: 300 } })
    .catch(() => undefined);
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(relativePath);
  const base = relativePath.split("/").pop() ?? relativePath;
  // The focused row, not any row: before the filter applies, the list is the recent history (the file
  // among it), and Enter would open the most recent editor instead.
  await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: base }).first().waitFor();
  await page.keyboard.press("Enter");
  await page.locator(`.tabs-container .tab.active[aria-label^="${base}"]`).first().waitFor();
  await page.locator(".monaco-editor .view-lines").first().waitFor();
}

/** The content frame of the active webview panel (VS Code nests it in two iframes). */
export function activeWebview(page: Page) {
  return page.frameLocator("iframe.webview.ready").last().frameLocator("iframe#active-frame");
}
