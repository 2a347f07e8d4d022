// Above each kernel, what ptxas reported for it on each target architecture:
//   sm_90: 40 regs · 0 B spill · 128 B smem   (a warning sign when it spills)
// from the last on-save compile; clicking opens the occupancy panel for that kernel. Before the first
// compile a single lens offers to compile.
import * as vscode from "vscode";
import { findKernelLine } from "../server/compiler/nvccPlacement";
import { formatResources, type KernelResources } from "../server/compiler/ptxasResources";
import type { CompileService } from "./nvccDiagnostics";
import { settings } from "./settings";

/** What the occupancy panel command receives from a lens. */
export interface OccupancyTarget {
  uri: string;
  symbol: string;
}

const GLOBAL_KERNEL = /__global__[^;{}]*?\b([A-Za-z_]\w*)\s*\(/g;

function lensTitle(k: KernelResources): string {
  const spills = k.spillStoreBytes + k.spillLoadBytes > 0;
  return `${spills ? "$(warning) " : ""}${formatResources(k)}`;
}

/** The compiles the lenses read: the entry's view of the nvcc bundle's (extension/lazyFeatures.ts). */
export type CompileResultsSource = Pick<CompileService, "onDidCompile" | "latest">;

export function activate(ctx: vscode.ExtensionContext, compiles: CompileResultsSource): void {
  const changed = new vscode.EventEmitter<void>();
  ctx.subscriptions.push(
    changed,
    compiles.onDidCompile(() => changed.fire()),
  );

  const provider: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: changed.event,
    provideCodeLenses(doc) {
      if (!settings(doc.uri).resourcesCodeLens) return [];
      const text = doc.getText();
      const compiled = compiles.latest(doc.uri);
      const lenses: vscode.CodeLens[] = [];
      if (compiled) {
        // One lens per kernel and architecture, placed where the kernel is now (the text may have moved).
        // Instantiations of one template share a line: their lenses start with the template arguments.
        const symbolsAt = new Map<number, Set<string>>();
        const lineOf = new Map<string, number | undefined>();
        for (const k of compiled.results.flatMap((r) => r.kernels)) {
          if (!lineOf.has(k.symbol)) lineOf.set(k.symbol, findKernelLine(text, k.symbol));
          const line = lineOf.get(k.symbol);
          if (line !== undefined) symbolsAt.set(line, (symbolsAt.get(line) ?? new Set()).add(k.symbol));
        }
        for (const r of compiled.results) {
          for (const k of r.kernels) {
            const line = lineOf.get(k.symbol);
            if (line === undefined) continue;
            const shared = (symbolsAt.get(line)?.size ?? 0) > 1;
            const target: OccupancyTarget = { uri: doc.uri.toString(), symbol: k.symbol };
            lenses.push(
              new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
                title: shared ? `${/<.*>$/.exec(k.name)?.[0] ?? k.name} ${lensTitle(k)}` : lensTitle(k),
                tooltip: `${k.name} on ${k.arch}: ${k.registers} registers, ${k.sharedBytes} B static shared memory, ${k.stackFrameBytes} B stack, spills ${k.spillStoreBytes} B stores / ${k.spillLoadBytes} B loads, ${k.barriers} barriers. Click for occupancy.`,
                command: "cudaKernelDev.showOccupancy",
                arguments: [target],
              }),
            );
          }
        }
        return lenses;
      }
      if (!vscode.workspace.isTrusted) return [];
      for (const m of text.matchAll(GLOBAL_KERNEL)) {
        const line = doc.positionAt(m.index + m[0].lastIndexOf(m[1]!)).line;
        lenses.push(
          new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
            title: "Compile to see registers, spills and shared memory",
            command: "cudaKernelDev.compileNow",
          }),
        );
      }
      return lenses;
    },
  };
  ctx.subscriptions.push(
    vscode.languages.registerCodeLensProvider({ language: "cuda-cpp", scheme: "file" }, provider),
  );
}
