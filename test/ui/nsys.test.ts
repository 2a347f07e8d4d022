// The Nsight Systems panel as a person sees it in code-server: the real H100 report
// (test/fixtures/nsys/step.nsys-rep, a torch script with NVTX "step" ranges) clicked in the explorer
// opens in the panel, read from its fresh SQLite export beside it (nsys is not installed here, and
// none is needed then): the kernel table has the real names and counts (as `nsys stats` printed
// them), the timeline canvas is drawn from a window the host answered, zooming asks for a new one,
// and clicking a kernel defined in the workspace opens its source.
import assert from "node:assert/strict";
import { cpSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  activeWebview,
  closeAllEditors,
  openFile,
  screenshot,
  withFailureScreenshot,
} from "../support/browser";
import { repoRoot, scratchCopy } from "../support/codeServer";
import { startUiSession, statusItem, type UiSession } from "../support/uiSession";

const FIX = join(repoRoot, "test/fixtures/nsys");
const ADD = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>";
let ui: UiSession;

before(async () => {
  const workspace = scratchCopy(join(repoRoot, "examples"));
  cpSync(join(FIX, "step.nsys-rep"), join(workspace, "step.nsys-rep"));
  cpSync(join(FIX, "step.sqlite"), join(workspace, "step.sqlite"));
  // The export is newer than the report, so it is read as is (as `nsys stats` reuses it).
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(workspace, "step.sqlite"), later, later);
  // A workspace kernel with the short name of the report's first kernel: clicking it opens this.
  writeFileSync(
    join(workspace, "elementwise.cu"),
    "// stands in for PyTorch's kernel\n__global__ void vectorized_elementwise_kernel(int n, float *x) {\n  x[n] += 1.0f;\n}\n",
  );
  ui = await startUiSession({ workspace });
});
after(async () => {
  await ui?.close();
});

/** The report opened from the explorer, alone, until its kernel table shows; returns the table's rows. */
async function openReport() {
  // A .cu file first: the extension is then active and its editors are known to the workbench.
  await openFile(ui.page, "elementwise.cu");
  await statusItem(ui.page).first().waitFor({ timeout: 30_000 });
  // Only the report's tab then: the source a kernel click opens is a new tab.
  await closeAllEditors(ui.page);
  await ui.page.locator(".explorer-folders-view .monaco-list-row", { hasText: "step.nsys-rep" }).click();
  const rows = activeWebview(ui.page).locator("#kernels tr");
  await rows.nth(1).waitFor({ timeout: 60_000 });
  return rows;
}

test("a .nsys-rep clicked in the explorer opens in the Nsight Systems panel with real kernels and a timeline", async () => {
  await withFailureScreenshot(ui.page, "nsys-panel", async () => {
    const rows = await openReport();
    const view = activeWebview(ui.page);
    // Header + the kernel rows, sorted by total time as cuda_gpu_kern_sum.
    const first = rows.nth(1).locator("td");
    assert.ok(((await first.nth(0).textContent()) ?? "").startsWith(ADD));
    assert.equal(await first.nth(1).textContent(), "23");
    assert.equal(await first.nth(2).textContent(), "57.12 µs");
    assert.equal(await rows.nth(2).locator("td").nth(1).textContent(), "21");
    assert.match((await view.locator("#nvtx").textContent()) ?? "", /step/);
    const canvas = view.locator("canvas.timeline");
    await view.locator("canvas.timeline[data-boxes]").waitFor({ timeout: 30_000 });
    assert.ok(Number(await canvas.getAttribute("data-boxes")) > 0);
    const painted = await canvas.evaluate((c: HTMLCanvasElement) => {
      const d = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
      return n;
    });
    assert.ok(painted > 1000, `${painted} pixels drawn`);
    await screenshot(ui.page, "nsys-panel");
    // Zooming in (the + key) asks the host for a new window.
    const before = Number(await canvas.getAttribute("data-window"));
    await canvas.focus();
    await canvas.press("+");
    await ui.page.waitForTimeout(300);
    await canvas.press("+");
    await view.locator(`canvas.timeline:not([data-window="${before}"])`).waitFor({ timeout: 10_000 });
  });
});

test("clicking a kernel defined in the workspace opens its source", async () => {
  await withFailureScreenshot(ui.page, "nsys-open-source", async () => {
    const rows = await openReport();
    await rows.nth(1).locator("a.kernel-name").click();
    await ui.page
      .locator('.tabs-container .tab[aria-label^="elementwise.cu"]')
      .first()
      .waitFor({ timeout: 30_000 });
  });
});
