// How the kernel commands (Benchmark, Profile, Write a benchmark spec) name a kernel, and how one of
// them finds the kernel it acts on: one scan of the document per command, reused all the way down.
import * as vscode from "vscode";
import { type KernelInfo, scanKernels } from "../server/bench/kernelScan";
import { findKernel } from "../server/bench/runBench";

/** A kernel as a lens or another command passes it: its document and its qualified name (`ns::name`). */
export interface KernelRef {
  uri: string;
  kernel: string;
}

export const qualifiedName = (k: KernelInfo): string => [...k.namespaces, k.name].join("::");

export const kernelRef = (uri: vscode.Uri, k: KernelInfo): KernelRef => ({
  uri: uri.toString(),
  kernel: qualifiedName(k),
});

/** Command arguments arrive untyped (a lens, a keybinding, another extension). */
export function isKernelRef(v: unknown): v is KernelRef {
  const r = v as Partial<KernelRef> | null;
  return typeof r === "object" && r !== null && typeof r.uri === "string" && typeof r.kernel === "string";
}

export interface KernelTarget {
  doc: vscode.TextDocument;
  /** The document's kernels: the command's one scan. */
  scan: KernelInfo[];
  /** The ref's kernel, else the one at the cursor (the last declared at or above it); undefined when none. */
  kernel: KernelInfo | undefined;
  /** The name a ref asked for (for the message when it is not there). */
  wanted?: string;
}

/** What a kernel command acts on: the ref's document, else the active editor's; undefined without either. */
export async function kernelTarget(arg: unknown): Promise<KernelTarget | undefined> {
  const editor = vscode.window.activeTextEditor;
  const ref = isKernelRef(arg) ? arg : undefined;
  const uri = ref ? vscode.Uri.parse(ref.uri) : editor?.document.uri;
  if (!uri) return undefined;
  const doc = await vscode.workspace.openTextDocument(uri);
  const scan = scanKernels(doc.getText());
  if (ref) return { doc, scan, kernel: findKernel(scan, ref.kernel), wanted: ref.kernel };
  const line = editor?.selection.active.line ?? Number.MAX_SAFE_INTEGER;
  return { doc, scan, kernel: scan.filter((k) => k.hasBody && k.declLine <= line).pop() };
}
