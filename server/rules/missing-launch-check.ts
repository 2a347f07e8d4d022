// A kernel launch returns nothing: a bad configuration or a missing kernel image is only visible through
// cudaGetLastError(). Unchecked, the output is silently left unwritten.
import type { Node } from "web-tree-sitter";
import type { Fix, Rule, TextEdit } from "./rule";
import { declEnv } from "../analysis/types/declEnv";
import { projectCheck } from "../analysis/launches/launchChecks";
import { LaunchChecks } from "../analysis/launches/launchChecked";
import { launchMacros, macroLaunchUses } from "../analysis/launches/macroLaunches";
import { FileIndex, kernelLaunches } from "../analysis/source/fileIndex";
import { checksElsewhere } from "../analysis/launches/checksElsewhere";
import { torchApi, type TorchApi } from "../analysis/source/pytorchExtension";
import { insertAfter } from "../analysis/source/nodes";

/** Inserts after the statement, or after its line when only a trailing comment follows it there. */
function afterLine(text: string, stmt: Node, newText: string): TextEdit {
  const nl = text.indexOf("\n", stmt.endIndex);
  const rest = text.slice(stmt.endIndex, nl < 0 ? text.length : nl).replace(/\r$/, "");
  if (!/^\s*(\/\/.*)?$/.test(rest)) return insertAfter(stmt, newText);
  const { row, column } = stmt.endPosition;
  const at = column + rest.length;
  return { span: { startLine: row, startColumn: at, endLine: row, endColumn: at }, newText };
}

/**
 * What to suggest: the macro of the PyTorch API the file uses; both when only its build makes it an
 * extension (its text does not say which API); else the project's own check when one is known.
 */
function advice(api: TorchApi | "build" | undefined, own: string | undefined): string {
  const last = "check cudaGetLastError() after it.";
  if (api === "c10") return `Add C10_CUDA_KERNEL_LAUNCH_CHECK() or ${last}`;
  if (api === "stable") return `Add STD_CUDA_KERNEL_LAUNCH_CHECK() (PyTorch's stable ABI) or ${last}`;
  if (api === "build")
    return `Add C10_CUDA_KERNEL_LAUNCH_CHECK() (STD_CUDA_KERNEL_LAUNCH_CHECK() on PyTorch's stable ABI) or ${last}`;
  if (own) return `Check it with the project's \`${own}\` or with cudaGetLastError() after it.`;
  return "Check cudaGetLastError() after it.";
}

const WHY = "a failed launch (bad configuration, no kernel image for this GPU) goes unnoticed";

export const missingLaunchCheck: Rule = {
  id: "missing-launch-check",
  defaultSeverity: "warning",
  basis: "heuristic",
  summary:
    "A kernel launch with no cudaGetLastError/cudaPeekAtLastError/getLastCudaError/C10_CUDA_KERNEL_LAUNCH_CHECK/STD_CUDA_KERNEL_LAUNCH_CHECK (or a project macro or function that calls one) after it, in its function or after each call of its function in the file.",
  check(ctx) {
    const idx = FileIndex.of(ctx);
    const launches = kernelLaunches(idx);
    // The built-in checks, the configured ones, and the macros of the file and the macros and functions of
    // its project headers that call one of them (declEnv.ts, launchChecks.ts).
    const known = declEnv(ctx).launchChecks;
    const uses = macroLaunchUses(idx, launchMacros(idx, known));
    if (launches.length === 0 && uses.length === 0) return;
    const api = torchApi(idx);
    // Not in a PyTorch extension, whose rule is a C10_CUDA_KERNEL_LAUNCH_CHECK() after each launch.
    if (!api && !ctx.build.pytorch && checksElsewhere(idx)) return;
    const checks = new LaunchChecks(idx, known);
    // Read only once a launch is unchecked here (a whole-file fact, recorded by LaunchChecks.checked).
    const say = (): string =>
      advice(api ?? (ctx.build.pytorch ? "build" : undefined), projectCheck(idx, checks.names));
    for (const { call } of launches) {
      if (checks.checked(call)) continue;
      const fn = call.childForFieldName("function");
      const name = fn ? idx.textOf(fn) : "kernel";
      ctx.report({
        // Only where the file includes c10's headers is its macro known to be declared (the stable ABI's
        // needs torch/csrc/stable/macros.h and PyTorch 2.10); elsewhere the project picks its check.
        fixes: api === "c10" ? torchFix(idx, call) : [],
        node: fn ?? call,
        message: `Launch of \`${name}\` is not followed by an error check: ${WHY}. ${say()}`,
      });
    }
    // One finding per macro per function, at its first unchecked use: a switch over template cases
    // expands the same launch in every arm.
    const reported = new Set<string>();
    for (const use of uses) {
      if (checks.checked(use.name, use.end)) continue;
      const key = `${use.macro.name}@${idx.functionSpanAt(use.name.startIndex)?.start}`;
      if (reported.has(key)) continue;
      reported.add(key);
      const { name, kernel } = use.macro;
      ctx.report({
        node: use.name,
        message: `\`${name}\` launches \`${kernel}\` (in its definition) and this use is not followed by an error check (one finding for its unchecked uses in this function): ${WHY}. ${say()}`,
      });
    }
  },
};

/** Inserting C10_CUDA_KERNEL_LAUNCH_CHECK() after the launch's statement, where the launch is one. */
function torchFix(idx: FileIndex, call: Node): Fix[] {
  // Node.parent costs a walk from the root: asked only here.
  const stmt = call.parent;
  if (stmt?.type !== "expression_statement") return [];
  const lineStart = idx.text.lastIndexOf("\n", call.startIndex) + 1;
  const indent = /^[ \t]*/.exec(idx.text.slice(lineStart))![0];
  return [
    {
      title: "Add C10_CUDA_KERNEL_LAUNCH_CHECK() after the launch",
      isPreferred: true,
      edits: [afterLine(idx.text, stmt, `\n${indent}C10_CUDA_KERNEL_LAUNCH_CHECK();`)],
    },
  ];
}
