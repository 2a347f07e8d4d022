// Kernel names such as `<img src=x onerror=alert(1)>` and `k<float, 4>` through the Occupancy and
// profile panels' real bundles, in Chromium, under each panel's own page and CSP (test/support/
// webviewPage.ts): the names show as text, no element or script comes from them, and the only CSP
// violation is the nonce-less script the harness plants. (The benchmark panel: benchPanel.test.ts.)
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseNcuCsv, type NcuDetailsLaunch } from "../../server/profile/ncuCsv";
import { profileView } from "../../server/profile/profileView";
import type { ShowMessage } from "../../webview/occupancy/protocol";
import type { HostMessage } from "../../webview/profile/protocol";
import { repoRoot } from "../support/codeServer";
import { componentBrowser, withPanel, type PanelPage } from "../support/webviewPage";

const IMG = "<img src=x onerror=alert(1)>";
const TEMPLATE = "k<float, 4>";
const PWN = '<img src=x onerror="window.__pwned=1">';
const smallDetails = join(repoRoot, "test/fixtures/profile/small.details.csv");

const browser = componentBrowser();
before(browser.start);
after(browser.stop);

/** The panel's stylesheet loaded under the CSP (both panels pad the page 16px). */
async function assertStyled(p: PanelPage): Promise<void> {
  assert.equal(await p.page.evaluate(() => getComputedStyle(document.body).paddingLeft), "16px");
}

describe("hostile kernel names in the Occupancy panel", () => {
  it("show as text in the heading and the file line", async () => {
    await withPanel(browser.get(), "occupancy", "occupancy hostile names", async (p) => {
      await assertStyled(p);
      for (const [kernel, file] of [
        [IMG, `${TEMPLATE}.cu`],
        [TEMPLATE, `${PWN}.cu`],
        [PWN, "dir/<script>alert(1)</script>.cu"],
      ] as const) {
        const msg: ShowMessage = {
          type: "show",
          kernel,
          file,
          points: [{ arch: "sm_90", regs: 32, staticSmem: 1024, barriers: 1, block: 256, dynamicSmem: 0 }],
        };
        await p.post(msg);
        await p.page.locator("#root", { hasText: kernel }).waitFor({ timeout: 20_000 });
        const text = (await p.page.locator("#root").textContent()) ?? "";
        assert.ok(text.includes(kernel) && text.includes(file), text.slice(0, 300));
        await p.assertNothingRan();
      }
    });
  });
});

describe("hostile kernel names in the profile panel", () => {
  it("a real export's launches renamed: heading and launch list are text", async () => {
    const exp = await parseNcuCsv({ path: smallDetails });
    const launches = (exp.launches as NcuDetailsLaunch[]).map((l, i) =>
      profileView({ ...l, kernel: [IMG, TEMPLATE, PWN][i % 3]! }),
    );
    await withPanel(browser.get(), "profile", "profile hostile names", async (p) => {
      await assertStyled(p);
      for (const selected of [0, 1, 2]) {
        const msg: HostMessage = {
          type: "profile",
          title: `${PWN}.csv`,
          file: `${TEMPLATE}.csv`,
          launches,
          selected,
          hotLines: null,
        };
        p.events.length = 0;
        await p.post(msg);
        await p.waitFor("rendered", (m) => m.type === "rendered" || m.type === "failed");
        assert.equal(await p.page.locator("h1.kernel").textContent(), launches[selected]!.kernel);
        assert.match(
          (await p.page.locator("select#launch").textContent()) ?? "",
          /<img src=x onerror=alert\(1\)>/,
        );
        await p.assertNothingRan();
      }
      // An error message from the host is text too.
      const error: HostMessage = { type: "error", title: IMG, message: PWN };
      await p.post(error);
      await p.page.locator("#root", { hasText: "onerror" }).first().waitFor();
      await p.assertNothingRan();
    });
  });
});

describe("hot lines read late in the profile panel", () => {
  it("the button asks the host; the answer replaces it, keeps the charts, and its file names are text", async () => {
    const exp = await parseNcuCsv({ path: smallDetails });
    const launches = (exp.launches as NcuDetailsLaunch[]).map((l) => profileView(l));
    await withPanel(browser.get(), "profile", "profile hot lines", async (p) => {
      const msg: HostMessage = {
        type: "profile",
        title: "r.csv",
        file: "r.csv",
        launches,
        selected: 0,
        hotLines: null,
      };
      await p.post(msg);
      const button = p.page.locator("button#hot-lines");
      await button.waitFor({ timeout: 20_000 });
      const charts = await p.page.locator("[data-chart] canvas").count();
      assert.ok(charts > 0);
      await button.click();
      await p.waitForType("readHotLines");
      assert.equal(await button.isDisabled(), true);
      // A failure says why; the answer after it (the user asked again) marks the files.
      const failed: HostMessage = { type: "hotLines", hotLines: [], error: `ncu failed: ${PWN}` };
      await p.post(failed);
      await p.page.locator("#hot-lines", { hasText: "ncu failed" }).waitFor();
      const late: HostMessage = { type: "hotLines", hotLines: [{ file: `${IMG}.cu`, lines: 3, samples: 9 }] };
      await p.post(late);
      await p.page.locator("span#hot-lines", { hasText: `Hot lines marked in ${IMG}.cu (3)` }).waitFor();
      // Only the toolbar changed: the charts drawn with the report are still there.
      assert.equal(await p.page.locator("[data-chart] canvas").count(), charts);
      await p.assertNothingRan();
    });
  });
});
