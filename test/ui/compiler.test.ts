// The compiler in the loop as a person sees it in code-server: nvcc errors in the Problems panel after
// a save (a syntax error, a type error inside a header, ptxas's too-large __shared__), the resource
// lenses, the Occupancy panel and the PTX view beside the source. Real nvcc, two targets (sm_80, sm_90).
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { activeWebview, openFile, runCommand, screenshot, withFailureScreenshot } from "../support/browser";
import { repoRoot, scratchCopy } from "../support/codeServer";
import { startUiSession, type UiSession } from "../support/uiSession";

let ui: UiSession;
before(async () => {
  const workspace = scratchCopy(join(repoRoot, "examples"));
  const broken = join(repoRoot, "test/fixtures/compiler/broken");
  for (const f of ["syntax_error.cu", "header_type_error.cu", "too_much_shared.cu"])
    cpSync(join(broken, f), join(workspace, f));
  mkdirSync(join(workspace, "include"), { recursive: true });
  cpSync(join(broken, "include/vec_math.cuh"), join(workspace, "include/vec_math.cuh"));
  ui = await startUiSession({
    workspace,
    settings: {
      "cudaKernelDev.targets": ["sm_80", "sm_90"],
      "cudaKernelDev.nvcc.includePaths": ["include"],
      "cudaKernelDev.nvcc.debounceMs": 0,
    },
  });
});
after(async () => {
  await ui?.close();
});

const problemRows = () => ui.page.locator(".markers-panel .monaco-list-row");

/** Saves the active editor after a harmless edit (VS Code does not save an unchanged file). */
async function editAndSave(): Promise<void> {
  await ui.page.locator(".monaco-editor .view-lines").first().click();
  await ui.page.keyboard.press("Control+End");
  await ui.page.keyboard.press("Enter");
  await ui.page.keyboard.press("Control+S");
  await ui.page.locator(".tabs-container .tab.active.dirty").waitFor({ state: "detached", timeout: 10_000 });
}

test("on save, nvcc's errors land in the Problems panel: syntax, a header's type error, ptxas shared memory", async () => {
  await withFailureScreenshot(ui.page, "nvcc-problems", async () => {
    for (const f of ["syntax_error.cu", "header_type_error.cu", "too_much_shared.cu"]) {
      await openFile(ui.page, f);
      await editAndSave();
    }
    await runCommand(ui.page, "View: Focus Problems");
    // The list is virtual (rows out of view are not in the DOM): narrow it with its filter box.
    const filter = ui.page.getByPlaceholder(/^Filter \(e\.g\./);
    for (const text of [
      'identifier "dd" is undefined',
      'expected a ";"',
      "cannot be used to initialize an entity",
      "uses too much shared data",
    ]) {
      await filter.fill(text);
      // "attached": the virtual list can keep a matching row laid out but reported hidden while it settles.
      await problemRows().filter({ hasText: text }).first().waitFor({ state: "attached", timeout: 60_000 });
    }
    await filter.fill("uses too much shared data");
    assert.ok(
      (await problemRows().filter({ hasText: "ptxas" }).count()) >= 1,
      "ptxas is named as the source",
    );
    // The header's error is listed under the header itself, not only under the .cu that includes it.
    await filter.fill("cannot be used to initialize");
    await problemRows()
      .filter({ hasText: "vec_math.cuh" })
      .first()
      .waitFor({ state: "attached", timeout: 10_000 });
    await screenshot(ui.page, "nvcc-problems");
    await filter.fill("");
  });
});

test("resource lenses above each kernel, and the Occupancy panel from a lens", async () => {
  await withFailureScreenshot(ui.page, "occupancy-panel", async () => {
    await runCommand(ui.page, "View: Close All Editors");
    await openFile(ui.page, "rmsnorm.cu");
    await editAndSave();
    await ui.page.keyboard.press("Control+Home");
    const lens = ui.page.locator(".monaco-editor .codelens-decoration a", {
      hasText: /sm_90: \d+ regs · \d+ B spill · \d+ B smem/,
    });
    await lens.first().waitFor({ timeout: 60_000 });
    await screenshot(ui.page, "resource-lenses");
    await lens.first().click();
    const view = activeWebview(ui.page);
    // One tab per target architecture; switching tabs recomputes for that architecture.
    await view.locator(".tab", { hasText: "sm_90" }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await view.locator(".tab").allTextContents(), ["sm_80", "sm_90"]);
    await view.locator(".tab", { hasText: "sm_80" }).click();
    await view.locator(".tab.active", { hasText: "sm_80" }).waitFor({ timeout: 10_000 });
    await view.locator(".limit, .error").first().waitFor({ timeout: 10_000 });
    await view.locator("canvas").nth(2).waitFor({ timeout: 10_000 });
    const limit = await view.locator(".summary").first().textContent();
    assert.match(limit ?? "", /blocks\/SM/);
    assert.match(limit ?? "", /Limited by|Cannot launch/);
    await screenshot(ui.page, "occupancy-panel");
  });
});

test("Show PTX opens the kernel's PTX beside the source and highlights the cursor line's instructions", async () => {
  await withFailureScreenshot(ui.page, "ptx-view", async () => {
    await runCommand(ui.page, "View: Close All Editors");
    await openFile(ui.page, "rmsnorm.cu");
    // A line of the generic kernel's body with code of its own: the sum of squares.
    const lines = readFileSync(join(ui.workspace, "rmsnorm.cu"), "utf8").split("\n");
    const target = lines.findIndex((l) => l.includes("sum_sq += v * v;")) + 1;
    assert.ok(target > 0);
    await runCommand(ui.page, "Go to Line/Column...");
    await ui.page.locator(".quick-input-widget input").fill(`:${target}:5`);
    await ui.page.keyboard.press("Enter");
    await runCommand(ui.page, "CUDA Kernel Dev: Show PTX for Kernel at Cursor");
    // Two targets: pick the architecture (the newest is first).
    await ui.page
      .locator(".quick-input-list .monaco-list-row", { hasText: "sm_90" })
      .first()
      .waitFor({ timeout: 10_000 });
    await ui.page.keyboard.press("Enter");
    await ui.page
      .locator(".tabs-container .tab", { hasText: "rmsnorm.cu.sm_90.ptx" })
      .first()
      .waitFor({ timeout: 60_000 });
    // Revealed at the kernel the cursor is in, not at the top of the file.
    await ui.page.locator(".view-lines", { hasText: "rmsnorm_kernel" }).first().waitFor({ timeout: 10_000 });
    // Move the cursor in the source: the PTX editor gets whole-line highlights for that line's code.
    const source = ui.page.locator(".editor-group-container").first();
    await source.locator(".view-lines").click();
    await runCommand(ui.page, "Go to Line/Column...");
    await ui.page.locator(".quick-input-widget input").fill(`:${target - 1}:5`);
    await ui.page.keyboard.press("Enter");
    await runCommand(ui.page, "Go to Line/Column...");
    await ui.page.locator(".quick-input-widget input").fill(`:${target}:5`);
    await ui.page.keyboard.press("Enter");
    const ptxGroup = ui.page.locator(".editor-group-container").nth(1);
    await ptxGroup.locator(".view-overlays div[class*='ced-']").first().waitFor({ timeout: 15_000 });
    await screenshot(ui.page, "ptx-view");
  });
});
