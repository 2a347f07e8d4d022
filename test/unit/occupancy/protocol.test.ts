import { test } from "node:test";
import assert from "node:assert/strict";
import { isShowMessage } from "../../../webview/occupancy/protocol";

const point = { arch: "sm_90", regs: 32, staticSmem: 128, barriers: 1, block: 256, dynamicSmem: 0 };

void test("the panel accepts a well-formed show message and nothing else", () => {
  assert.ok(isShowMessage({ type: "show", kernel: "k<float>", file: "a.cu", points: [point] }));
  assert.ok(!isShowMessage({ type: "show", kernel: "k", file: "a.cu", points: [] }), "no tabs");
  assert.ok(
    !isShowMessage({ type: "show", kernel: "k", file: "a.cu", points: [{ ...point, regs: 300 }] }),
    "300 registers",
  );
  assert.ok(
    !isShowMessage({ type: "show", kernel: "k", file: "a.cu", points: [{ ...point, block: 0 }] }),
    "empty block",
  );
  assert.ok(
    !isShowMessage({ type: "show", kernel: "k", file: "a.cu", points: [{ ...point, arch: "<img src=x>" }] }),
    "not an arch",
  );
  assert.ok(!isShowMessage({ type: "show", kernel: 5, file: "a.cu", points: [point] }));
  assert.ok(
    !isShowMessage({ type: "show", kernel: "k".repeat(5000), file: "a.cu", points: [point] }),
    "oversized",
  );
  assert.ok(!isShowMessage(null));
  assert.ok(!isShowMessage("show"));
});
