// The Nsight Systems panel's real bundle in Chromium under its own page and CSP (test/support/
// webviewPage.ts), fed a report whose kernel and NVTX range are named `<img src=x onerror=...>`: the
// tables, the canvas labels and the hover tooltip show the names as text, nothing runs, and the page's
// only requests are windows.
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { NsysTimelineData } from "../../extension/nsysPanelWindow";
import type { NsysTrace } from "../../server/profile/nsysReport";
import { summarizeTrace } from "../../server/profile/nsysReportSummary";
import { isNsysRequest } from "../../webview/nsys/protocol";
import { componentBrowser, withPanel, type PanelEvent, type PanelPage } from "../support/webviewPage";

const PWN = '<img src=x onerror="window.__pwned=1">';

const trace: NsysTrace = {
  ops: [0, 1, 2].map((i) => ({
    kind: "kernel" as const,
    startNs: 1000 + i * 400_000,
    endNs: 1000 + i * 400_000 + 300_000,
    deviceId: 0,
    streamId: 7,
    correlationId: i,
    globalPid: 1,
    name: PWN,
    shortName: PWN,
    grid: [4, 1, 1] as [number, number, number],
    block: [128, 1, 1] as [number, number, number],
  })),
  calls: [],
  ranges: [{ name: PWN, domain: null, style: "PushPop", startNs: 0, endNs: 1_300_000, globalTid: 1 }],
  gpus: [{ id: 0, name: "GPU" }],
};

const browser = componentBrowser();
before(browser.start);
after(browser.stop);

/** The host's side: the report on `ready`, windows answered from the same data the extension keeps. */
function host(): (m: PanelEvent, panel: PanelPage) => Promise<void> {
  const data = new NsysTimelineData(trace);
  return async (m, panel) => {
    if (isNsysRequest(m) && m.type === "window") await panel.post(data.window(m));
    if (m.type === "ready")
      await panel.post(data.report(summarizeTrace(PWN, trace), PWN, `${PWN}.nsys-rep`, PWN));
  };
}

it("shows hostile kernel and range names as text in the tables, the timeline and its tooltip", async () => {
  await withPanel(
    browser.get(),
    "nsys",
    "nsys hostile names",
    async (p) => {
      const { page } = p;
      await page.locator("canvas.timeline[data-boxes]").waitFor({ timeout: 20_000 });
      assert.equal(await p.text("#kernels a.kernel-name"), PWN);
      assert.equal(await p.text("h1"), PWN);
      assert.match(await p.text("#nvtx"), /<img src=x/);
      // Hover the middle kernel (lane under the NVTX row): the tooltip names it, as text.
      const box = (await page.locator("canvas.timeline").boundingBox())!;
      const lanesTop = 20 + 16 + 4;
      const x = 120 + (box.width - 120) * ((1000 + 400_000 + 150_000) / 1_301_000);
      await page.mouse.move(box.x + x, box.y + lanesTop + 13);
      await page.locator(".tip.shown").waitFor({ timeout: 5_000 });
      assert.equal(await p.text(".tip .tip-name"), PWN);
      assert.match(await p.text(".tip"), /grid \(4, 1, 1\) block \(128, 1, 1\)/);
      await page.mouse.click(box.x + x, box.y + lanesTop + 13);
      await p.waitFor("openKernel", (m) => m.type === "openKernel" && m.name === PWN);
      await p.assertNothingRan();
      const expected = ["ready", "rendered", "window", "openKernel", "csp", "console"];
      assert.deepEqual(
        p.events.filter((m) => !expected.includes(m.type ?? "")),
        [],
      );
    },
    { onMessage: host() },
  );
});
