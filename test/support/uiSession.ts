// One code-server + one Chromium page per UI test file, on a scratch copy of examples/.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, openWorkbench } from "./browser";
import { installExtension, repoRoot, scratchCopy, startCodeServer, type CodeServer } from "./codeServer";

export interface UiSession {
  server: CodeServer;
  browser: Browser;
  page: Page;
  workspace: string;
  close(): Promise<void>;
}

let installed = false;

export async function startUiSession(
  opts: { settings?: Record<string, unknown>; workspace?: string } = {},
): Promise<UiSession> {
  const extensionsDir = join(repoRoot, ".tools/extensions");
  if (!installed) {
    installExtension(extensionsDir);
    installed = true;
  }
  const workspace = opts.workspace ?? scratchCopy(join(repoRoot, "examples"));
  const server = await startCodeServer({ workspace, settings: opts.settings ?? {}, extensionsDir });
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await openWorkbench(page, server.url, workspace);
  return {
    server,
    browser,
    page,
    workspace,
    async close() {
      await browser.close().catch(() => undefined);
      await server.stop();
    },
  };
}

/** The extension's status-bar item (targets), as VS Code renders it. */
export function statusItem(page: Page) {
  // VS Code renders it with id "<publisher>.<name>.<item id>".
  return page.locator('.statusbar-item[id^="cuda-kernel-dev.cuda-kernel-dev."][id$="targets"]');
}
