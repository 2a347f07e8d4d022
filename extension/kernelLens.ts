// "▶ Benchmark" and "Profile" above every __global__ kernel with a body, from one scan of the
// document; both lenses pass the same KernelRef.
import * as vscode from "vscode";
import { scanKernels } from "../server/bench/kernelScan";
import { BENCHMARK_COMMAND, PROFILE_COMMAND } from "./contributions";
import { kernelRef } from "./kernelRef";

class KernelLenses implements vscode.CodeLensProvider {
  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    // The scan is a masked-text pass (no parse): cheap enough for every edit.
    return scanKernels(doc.getText())
      .filter((k) => k.hasBody)
      .flatMap((k) => {
        const range = new vscode.Range(k.declLine, 0, k.declLine, 0);
        const ref = [kernelRef(doc.uri, k)];
        return [
          new vscode.CodeLens(range, {
            title: "▶ Benchmark",
            tooltip:
              k.specLines.length > 0
                ? `Benchmark ${k.name} from its @bench spec`
                : `${k.name} has no @bench spec yet`,
            command: BENCHMARK_COMMAND,
            arguments: ref,
          }),
          new vscode.CodeLens(range, {
            title: "Profile",
            tooltip: `Profile ${k.name} with Nsight Compute`,
            command: PROFILE_COMMAND,
            arguments: ref,
          }),
        ];
      });
  }
}

export function activate(ctx: vscode.ExtensionContext): void {
  ctx.subscriptions.push(
    vscode.languages.registerCodeLensProvider({ language: "cuda-cpp" }, new KernelLenses()),
  );
}
