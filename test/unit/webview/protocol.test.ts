import { test } from "node:test";
import assert from "node:assert/strict";
import { isPanelMessage } from "../../../webview/shared/protocol";

void test("the host accepts ready, rendered and failed messages from any panel, nothing else", () => {
  assert.ok(isPanelMessage({ type: "ready" }));
  assert.ok(isPanelMessage({ type: "rendered", charts: ["time", "speedup"] }));
  assert.ok(isPanelMessage({ type: "rendered", view: "profile", charts: [] }));
  assert.ok(isPanelMessage({ type: "failed", message: "x" }));
  assert.ok(!isPanelMessage({ type: "failed" }));
  assert.ok(!isPanelMessage({ type: "error", message: "x" }), "the old occupancy name");
  assert.ok(!isPanelMessage({ type: "rendered", charts: [1] }));
  assert.ok(!isPanelMessage({ type: "rendered", view: null, charts: [] }));
  assert.ok(!isPanelMessage({ type: "run", command: "rm -rf /" }));
  assert.ok(!isPanelMessage([]));
  assert.ok(!isPanelMessage(null));
});
