// Hostile and large Nsight Systems exports opened in code-server (issue 26, item 1): a junk
// .nsys-rep with a fresh .sqlite beside it opens through that export, as a person clicking it in the
// explorer gets it. The export is read in the reader process, so the extension host answers another
// command meanwhile (Open Nsight Compute Report or CSV… shows its file picker): with a recursive
// view as StringIds the panel says it is not an nsys export, and a large real-shaped export is still
// being read when that command has answered. Before, the read ran in the extension host: the
// recursive view blocked it for good, and the large export until it was read.
import assert from "node:assert/strict";
import { readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { activeWebview, openFile, runCommand, screenshot, withFailureScreenshot } from "../support/browser";
import { repoRoot, scratchCopy } from "../support/codeServer";
import { startUiSession, statusItem, type UiSession } from "../support/uiSession";
import { writeHostile } from "../unit/profile/nsysHostileExports";
import { addSteps, SynthExport } from "../unit/profile/nsysSynth";

/** Launches in the large export: 3,000 steps of 101, ~28 MB, several seconds to read here. */
const STEPS = 3000;
let ui: UiSession;

/** A junk NAME.nsys-rep and, newer than it, SQLITE as its export NAME.sqlite. */
function besideJunkReport(workspace: string, name: string, sqlite: Uint8Array): void {
  writeFileSync(join(workspace, `${name}.nsys-rep`), "not a report\n");
  writeFileSync(join(workspace, `${name}.sqlite`), sqlite);
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(workspace, `${name}.sqlite`), later, later);
}

before(async () => {
  const workspace = scratchCopy(join(repoRoot, "examples"));
  const hostile = await writeHostile(workspace, "recursive-view");
  besideJunkReport(workspace, "hostile", readFileSync(hostile));
  rmSync(hostile);
  const x = await SynthExport.create();
  addSteps(x, STEPS, 101);
  besideJunkReport(workspace, "large", x.bytes());
  x.db.close();
  ui = await startUiSession({ workspace });
});
after(async () => {
  await ui?.close();
  // The large export is 28 MB: leave nothing of it in the temp folder.
  if (ui) rmSync(ui.workspace, { recursive: true, force: true });
});

const PICKER = "Open an Nsight Compute report or CSV export";

/** Runs an extension-host command (its file picker) and waits until its picker shows; closes it. */
async function anotherCommandAnswers(): Promise<void> {
  await runCommand(ui.page, "CUDA Kernel Dev: Open Nsight Compute Report or CSV");
  await ui.page.locator(".quick-input-widget", { hasText: PICKER }).waitFor({ timeout: 15_000 });
}

/** A .cu file first: the extension is then active and its editors are known to the workbench. */
async function activate(): Promise<void> {
  await openFile(ui.page, "rmsnorm.cu");
  await statusItem(ui.page).first().waitFor({ timeout: 30_000 });
}

async function openInExplorer(file: string): Promise<void> {
  await ui.page.locator(".explorer-folders-view .monaco-list-row", { hasText: file }).click();
}

test("a hostile export (a recursive view) opens as 'not an nsys export'; another command answers meanwhile", async () => {
  await withFailureScreenshot(ui.page, "nsys-hostile", async () => {
    await activate();
    await openInExplorer("hostile.nsys-rep");
    await anotherCommandAnswers();
    await ui.page.keyboard.press("Escape");
    const view = activeWebview(ui.page);
    await view
      .getByText(/is not an Nsight Systems export: StringIds is a view, not a table/)
      .waitFor({ timeout: 30_000 });
    await screenshot(ui.page, "nsys-hostile");
  });
});

test("a large export is still being read when another command has answered, then shows its kernels", async () => {
  await withFailureScreenshot(ui.page, "nsys-large", async () => {
    await activate();
    // One webview at a time: activeWebview is then this panel's.
    await runCommand(ui.page, "View: Close All Editors");
    await openInExplorer("large.nsys-rep");
    // The read's progress notification (the workbench's own, not the webview's) is up while it reads.
    const reading = ui.page.locator(".notification-toast", { hasText: "Nsight Systems: large.nsys-rep" });
    await reading.waitFor({ timeout: 30_000 });
    await anotherCommandAnswers();
    assert.ok(await reading.isVisible(), "the export was still being read when the command answered");
    await ui.page.keyboard.press("Escape");
    const view = activeWebview(ui.page);
    await view.locator("#kernels tr").nth(1).waitFor({ timeout: 120_000 });
    assert.match((await view.locator("#nvtx").textContent()) ?? "", /step/);
  });
});
