import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  parseNvidiaSmiXml,
  queryNvidiaSmi,
  smiQuantity,
  NvidiaSmiError,
} from "../../../server/profile/nvidiaSmi";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const xml = readFileSync(join(__dirname, "../../fixtures/profile/h200-nvidia-smi-q.xml"), "utf8");

describe("nvidia-smi -q -x (real H200 output)", () => {
  it("reads the driver, CUDA version and one device", () => {
    const log = parseNvidiaSmiXml(xml);
    assert.equal(log.driverVersion, "580.159.04");
    assert.equal(log.cudaVersion, "13.0"); // a string: "13.0" must not become 13
    assert.equal(log.devices.length, 1);
  });

  it("reads name, architecture, memory, clocks, temperature and power in base units", () => {
    const [d] = parseNvidiaSmiXml(xml).devices;
    assert.equal(d!.name, "NVIDIA H200");
    assert.equal(d!.architecture, "Hopper");
    assert.equal(d!.pciBusId, "00000000:00:06.0");
    assert.equal(d!.uuid, "GPU-58ff84fd-2665-94a9-d339-b955185b0400");
    assert.equal(d!.memoryTotalBytes, 143771 * 1024 ** 2);
    assert.equal(d!.memoryFreeBytes, 143156 * 1024 ** 2);
    assert.equal(d!.smClockHz, 375e6);
    assert.equal(d!.maxSmClockHz, 1980e6);
    assert.equal(d!.maxMemClockHz, 3201e6);
    assert.equal(d!.temperatureC, 41);
    assert.equal(d!.memoryTemperatureC, 39);
    assert.equal(d!.powerDrawW, 115.27);
    assert.equal(d!.powerLimitW, 700);
    assert.equal(d!.performanceState, "P0");
    assert.equal(d!.migMode, "Disabled");
  });

  it("N/A and unknown units are null, never a number", () => {
    assert.equal(smiQuantity("N/A"), null);
    assert.equal(smiQuantity("12 parsecs"), null);
    assert.equal(smiQuantity("1847 KB/s"), null);
    assert.equal(smiQuantity("2 GiB"), 2 * 1024 ** 3);
  });

  it("damaged XML and other documents give clear errors", () => {
    assert.throws(
      () => parseNvidiaSmiXml(xml.slice(0, 5000)),
      (e: unknown) => e instanceof NvidiaSmiError && e.code === "BAD_XML" && /damaged/.test(e.message),
    );
    assert.throws(() => parseNvidiaSmiXml("<html><body/></html>"), /no <nvidia_smi_log>/);
  });

  it("with no driver on this machine, querying says so", async () => {
    await assert.rejects(
      queryNvidiaSmi("/nonexistent/nvidia-smi"),
      (e: unknown) => e instanceof NvidiaSmiError && e.code === "NOT_FOUND",
    );
  });
});
