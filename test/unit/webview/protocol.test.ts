import { test } from "node:test";
import assert from "node:assert/strict";
import { isHostMessage, isReadHotLines } from "../../../webview/profile/protocol";
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

void test("the profile panel: a report's hot lines unread (null) or marked, the late answer, the one request", () => {
  const report = { type: "profile", title: "t", file: "f", launches: [], selected: 0 };
  assert.ok(isHostMessage({ ...report, hotLines: null }));
  assert.ok(isHostMessage({ ...report, hotLines: [{ file: "a.cu", lines: 2, samples: 5 }] }));
  assert.ok(!isHostMessage(report), "hot lines neither read nor unread");
  assert.ok(isHostMessage({ type: "hotLines", hotLines: [] }));
  assert.ok(isHostMessage({ type: "hotLines", hotLines: [], error: "ncu failed" }));
  assert.ok(!isHostMessage({ type: "hotLines", hotLines: null }));
  assert.ok(!isHostMessage({ type: "hotLines", hotLines: [], error: 5 }));
  assert.ok(isReadHotLines({ type: "readHotLines" }));
  assert.ok(!isReadHotLines({ type: "hotLines" }));
  assert.ok(!isReadHotLines(null));
});
