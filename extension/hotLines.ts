// Hot source lines from an ncu source page, marked in the editor: a gutter heat mark and a short
// after-text on each line that drew warp-stall samples, and a hover with the numbers and the stall
// breakdown. Paths in the report are where the program was built; when that file is not here, the
// longest path tail that exists under a workspace folder is used (a report from another machine).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { isAbsolute, join, sep } from "node:path";
import * as vscode from "vscode";
import type { HotLine, SourceReport } from "../server/profile/ncuSource";

const LEVELS = [
  { name: "hot", color: "#f14c4c", min: 0.5 },
  { name: "warm", color: "#d18616", min: 0.15 },
  { name: "mild", color: "#cca700", min: 0 },
] as const;

interface FileHot {
  lines: Map<number, HotLine>;
  total: number;
  max: number;
}

export class HotLines implements vscode.Disposable {
  private readonly files = new Map<string, FileHot>();
  private types: vscode.TextEditorDecorationType[] | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly ctx: vscode.ExtensionContext) {
    this.subs.push(
      vscode.window.onDidChangeVisibleTextEditors((eds) => eds.forEach((e) => this.apply(e))),
      vscode.languages.registerHoverProvider(
        { scheme: "file" },
        { provideHover: (doc, pos) => this.hover(doc, pos) },
      ),
    );
  }

  /** Replaces the marked lines with this report's; returns what was marked, per local file. */
  set(report: SourceReport): { file: string; lines: number; samples: number }[] {
    this.files.clear();
    const marked: { file: string; lines: number; samples: number }[] = [];
    for (const f of report.files) {
      const local = localPath(f.path);
      const hot = f.lines.filter((l) => l.samples > 0);
      if (!local || hot.length === 0) continue;
      this.files.set(local, {
        lines: new Map(hot.map((l) => [l.line, l])),
        total: f.totalSamples,
        max: Math.max(...hot.map((l) => l.samples)),
      });
      marked.push({
        file: vscode.workspace.asRelativePath(local),
        lines: hot.length,
        samples: f.totalSamples,
      });
    }
    vscode.window.visibleTextEditors.forEach((e) => this.apply(e));
    return marked;
  }

  clear(): void {
    this.files.clear();
    vscode.window.visibleTextEditors.forEach((e) => this.apply(e));
  }

  private decorationTypes(): vscode.TextEditorDecorationType[] {
    if (this.types) return this.types;
    // Gutter icons must be files: written once, on first use (not at activation).
    const dir = join(this.ctx.globalStorageUri.fsPath, "hot-lines");
    mkdirSync(dir, { recursive: true });
    this.types = LEVELS.map((lvl) => {
      const icon = join(dir, `${lvl.name}.svg`);
      if (!existsSync(icon))
        writeFileSync(
          icon,
          `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect x="5" y="1" width="6" height="14" rx="2" fill="${lvl.color}"/></svg>`,
        );
      return vscode.window.createTextEditorDecorationType({
        gutterIconPath: vscode.Uri.file(icon),
        gutterIconSize: "contain",
        overviewRulerColor: lvl.color,
        overviewRulerLane: vscode.OverviewRulerLane.Right,
        isWholeLine: true,
        backgroundColor: `${lvl.color}1a`,
      });
    });
    return this.types;
  }

  apply(editor: vscode.TextEditor): void {
    const hot = this.files.get(editor.document.uri.fsPath);
    if (!hot && !this.types) return;
    const types = this.decorationTypes();
    const buckets: vscode.DecorationOptions[][] = LEVELS.map(() => []);
    if (hot) {
      for (const l of hot.lines.values()) {
        if (l.line < 1 || l.line > editor.document.lineCount) continue;
        const share = l.samples / hot.max;
        const level = LEVELS.findIndex((lvl) => share >= lvl.min);
        const range = editor.document.lineAt(l.line - 1).range;
        const pctOfFile = hot.total > 0 ? (100 * l.samples) / hot.total : 0;
        const top = l.stalls[0] ? `, mostly ${l.stalls[0].reason}` : "";
        buckets[level]!.push({
          range,
          renderOptions: {
            after: {
              contentText: `  ${pctOfFile.toFixed(1)}% of samples${top}`,
              color: new vscode.ThemeColor("editorCodeLens.foreground"),
              fontStyle: "italic",
            },
          },
        });
      }
    }
    types.forEach((t, i) => editor.setDecorations(t, buckets[i]!));
  }

  private hover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const hot = this.files.get(doc.uri.fsPath);
    const l = hot?.lines.get(pos.line + 1);
    if (!hot || !l) return undefined;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**Nsight Compute: line ${l.line}**\n\n`);
    md.appendMarkdown(
      `- warp stall samples: ${l.samples} (${((100 * l.samples) / Math.max(hot.total, 1)).toFixed(1)}% of this file's)\n`,
    );
    if (l.notIssuedSamples !== null) md.appendMarkdown(`- not-issued samples: ${l.notIssuedSamples}\n`);
    if (l.instructionsExecuted !== null)
      md.appendMarkdown(`- warp instructions executed: ${l.instructionsExecuted.toLocaleString("en-US")}\n`);
    if (l.stalls.length > 0) {
      md.appendMarkdown(`\n| stall reason | samples |\n|---|---:|\n`);
      for (const s of l.stalls.slice(0, 10)) md.appendMarkdown(`| ${escapeMd(s.reason)} | ${s.samples} |\n`);
    }
    return new vscode.Hover(md, doc.lineAt(pos.line).range);
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    for (const t of this.types ?? []) t.dispose();
  }
}

function escapeMd(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);
}

/**
 * Where a report's source path is in this workspace: the path itself when it lies inside a
 * workspace folder, else the longest tail of it found under one (a report from another machine or
 * checkout), else the path itself if it exists at all.
 */
export function localPath(reportPath: string): string | undefined {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const exists = isAbsolute(reportPath) && existsSync(reportPath);
  if (exists && folders.some((f) => reportPath.startsWith(f + sep))) return reportPath;
  const parts = reportPath.split(/[\\/]+/).filter(Boolean);
  for (const folder of folders) {
    for (let i = 0; i < parts.length; i++) {
      const candidate = join(folder, parts.slice(i).join(sep));
      if (existsSync(candidate)) return candidate;
    }
  }
  return exists ? reportPath : undefined;
}
