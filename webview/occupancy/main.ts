// The Occupancy panel, like NVIDIA's CUDA Occupancy Calculator: for the kernel's registers, static
// shared memory and launch, occupancy against block size, registers per thread and shared memory per
// block (curves.ts), the current point marked, one tab per target architecture, and the limit that
// binds. Computed here with the same calculator the CLI uses (server/occupancy), so the inputs can
// change without a round trip. Every string goes into the DOM through textContent.
import { occupancy, OccupancyInputError, type OccupancyResult } from "../../server/occupancy/occupancy";
import { el } from "../shared/dom";
import { listen, postToHost, redraw } from "../shared/host";
import { curves } from "./curves";
import { isShowMessage, type OccupancyPoint, type ShowMessage } from "./protocol";

const LIMIT_NAMES: Record<OccupancyResult["limitedBy"], string> = {
  warps: "warps per SM (block size)",
  registers: "registers per SM",
  sharedMemory: "shared memory per SM",
  blocks: "blocks per SM",
  barriers: "barriers per SM",
};

let state: ShowMessage | undefined;
let active = 0;
const edits = new Map<number, OccupancyPoint>();

function numberInput(label: string, value: number, max: number, onChange: (v: number) => void): HTMLElement {
  const wrap = el("label", undefined, "field");
  wrap.append(el("span", label));
  const input = el("input");
  input.type = "number";
  input.min = "0";
  input.max = String(max);
  input.value = String(value);
  input.addEventListener("change", () => {
    const v = Number(input.value);
    if (Number.isInteger(v) && v >= 0 && v <= max) onChange(v);
    else input.value = String(value);
  });
  wrap.append(input);
  return wrap;
}

/** One tab per architecture; a click shows that architecture. */
function tabs(points: OccupancyPoint[]): HTMLElement {
  const nav = el("nav", undefined, "tabs");
  nav.setAttribute("role", "tablist");
  points.forEach((p, i) => {
    const b = el("button", p.arch, i === active ? "tab active" : "tab");
    b.setAttribute("role", "tab");
    b.setAttribute("aria-selected", String(i === active));
    b.addEventListener("click", () => {
      active = i;
      render();
    });
    nav.append(b);
  });
  return nav;
}

/** The launch inputs of the active tab; a change recomputes (the kernel as compiled stays in `state`). */
function inputs(p: OccupancyPoint): HTMLElement {
  const update = (q: Partial<OccupancyPoint>): void => {
    edits.set(active, { ...p, ...q });
    render();
  };
  const box = el("section", undefined, "inputs");
  box.append(
    numberInput("threads per block", p.block, 1024, (v) => update({ block: Math.max(1, v) })),
    numberInput("registers per thread", p.regs, 255, (v) => update({ regs: v })),
    numberInput("static shared memory (B)", p.staticSmem, 1 << 20, (v) => update({ staticSmem: v })),
    numberInput("dynamic shared memory (B)", p.dynamicSmem, 1 << 20, (v) => update({ dynamicSmem: v })),
  );
  return box;
}

/** The occupancy, blocks and warps per SM, what limits them, and each resource's block limit. */
function summary(r: OccupancyResult): HTMLElement {
  const box = el("section", undefined, "summary");
  box.append(
    el("div", `${r.occupancyPct}%`, "big"),
    el("div", `${r.activeBlocksPerSM} blocks/SM · ${r.activeWarpsPerSM} of ${r.maxWarpsPerSM} warps`),
    el(
      "div",
      r.activeBlocksPerSM === 0
        ? `Cannot launch: ${r.reason ?? "no block fits"}`
        : `Limited by ${r.limiters.map((x) => LIMIT_NAMES[x]).join(" and ")}`,
      r.activeBlocksPerSM === 0 ? "error" : "limit",
    ),
  );
  const table = el("table");
  const head = el("tr");
  head.append(el("th", "limit"), el("th", "blocks/SM it allows"));
  table.append(head);
  const rows: [string, number | null][] = [
    ["warps", r.blockLimits.warps],
    ["registers", r.blockLimits.registers],
    ["shared memory", r.blockLimits.sharedMemory],
    ["blocks per SM", r.blockLimits.blocks],
    ["barriers", r.blockLimits.barriers],
  ];
  for (const [name, n] of rows) {
    const tr = el("tr");
    tr.append(el("td", name), el("td", n === null ? "no limit" : String(n)));
    table.append(tr);
  }
  box.append(table);
  return box;
}

function draw(root: HTMLElement, shown: ShowMessage): void {
  const header = el("header");
  header.append(el("h2", shown.kernel), el("span", shown.file, "muted"));
  const p = edits.get(active) ?? shown.points[active]!;
  root.append(header, tabs(shown.points), inputs(p));
  let r: OccupancyResult;
  try {
    r = occupancy(
      p.arch,
      { regsPerThread: p.regs, staticSmemBytes: p.staticSmem, barriers: p.barriers },
      { blockSize: p.block, dynamicSmemBytes: p.dynamicSmem },
    );
  } catch (err) {
    // Inputs the calculator refuses are the person's to fix: said in the panel, logged by the host.
    if (!(err instanceof OccupancyInputError)) throw err;
    root.append(el("p", err.message, "error"));
    postToHost({ type: "failed", message: err.message });
    return;
  }
  root.append(summary(r));
  const grid = el("section", undefined, "charts");
  root.append(grid);
  curves(grid, p, r.occupancyPct);
}

function render(): void {
  const shown = state;
  if (shown) redraw((root) => draw(root, shown));
}

document.getElementById("root")!.replaceChildren(el("p", "Waiting for a kernel…", "muted"));
listen(isShowMessage, (msg) => {
  state = msg;
  edits.clear();
  active = Math.min(active, msg.points.length - 1);
  render();
});
