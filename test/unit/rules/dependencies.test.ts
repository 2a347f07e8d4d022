// Recording which whole-file facts each rule read (server/lint/dependencies.ts): a relint runs a
// rule over the whole file again only when one of them changed, so a fact missed here is a stale finding.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DependencyRecorder } from "../../../server/lint/dependencies";

describe("dependency recorder", () => {
  it("gives each rule the facts it read", () => {
    const deps = new DependencyRecorder();
    const a = deps.record(() => deps.reads("const:kThreads"));
    const b = deps.record(() => deps.reads("halfDecls"));
    assert.deepEqual([...a], ["const:kThreads"]);
    assert.deepEqual([...b], ["halfDecls"]);
  });

  /** A shared value that reads `fact` while it is made (once: later calls reuse it). */
  const sharedReading =
    (deps: DependencyRecorder, memo: Map<string, unknown>, key: string, fact: string) => () =>
      deps.shared(key, memo, () => {
        deps.reads(fact);
        return key.length;
      });

  it("passes the facts a shared value read on to every rule that uses it, made or reused", () => {
    const deps = new DependencyRecorder();
    const blockSizes = sharedReading(deps, new Map(), "blockSizes", "const:kThreads");
    const first = deps.record(() => blockSizes());
    // The second rule only reads the shared value: the constant was read while the first one ran.
    const second = deps.record(() => blockSizes());
    assert.deepEqual([...first], ["const:kThreads"]);
    assert.deepEqual([...second], ["const:kThreads"]);
  });

  it("passes facts up through shared values made inside other shared values", () => {
    const deps = new DependencyRecorder();
    const memo = new Map<string, unknown>();
    const launches = sharedReading(deps, memo, "launches", "fileWide");
    const sizes = (): number => deps.shared("sizes", memo, () => launches() + 1);
    deps.record(() => launches());
    assert.deepEqual([...deps.record(() => sizes())], ["fileWide"]);
  });

  it("records nothing outside a rule (the engine's own reads of the context)", () => {
    const deps = new DependencyRecorder();
    deps.reads("context:optIn");
    assert.deepEqual([...deps.record(() => undefined)], []);
  });
});
