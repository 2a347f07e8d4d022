// A stand-in for the `vscode` module, for unit tests of extension code that needs only a little of it
// (the webview host: Uri.joinPath, window.createWebviewPanel, ViewColumn; workspace.isTrusted for the
// launch policy). Importing this file makes `require("vscode")` return it, so import it before the
// module under test. Its webview records what the host does to it (html, options, posted messages)
// and lets a test speak as the page.
import Module from "node:module";
import { posix } from "node:path";

export class FakeUri {
  constructor(readonly path: string) {}
  static file(path: string): FakeUri {
    return new FakeUri(path);
  }
  static joinPath(base: FakeUri, ...parts: string[]): FakeUri {
    return new FakeUri(posix.join(base.path, ...parts));
  }
  toString(): string {
    return `file://${this.path}`;
  }
}

type Listener<T> = (e: T) => void;

/** A vscode.Webview: what the host set, what it posted; `fromPage` delivers a message as the page would. */
export class FakeWebview {
  html = "";
  options: { enableScripts?: boolean; localResourceRoots?: FakeUri[] } = {};
  /** What VS Code's webview.cspSource is. */
  readonly cspSource = "https://*.vscode-cdn.net";
  readonly posted: unknown[] = [];
  private readonly listeners = new Set<Listener<unknown>>();

  asWebviewUri(uri: FakeUri): { toString(): string } {
    return { toString: () => `https://file+.vscode-resource.vscode-cdn.net${uri.path}` };
  }
  onDidReceiveMessage(fn: Listener<unknown>): { dispose(): void } {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }
  postMessage(m: unknown): Promise<boolean> {
    this.posted.push(m);
    return Promise.resolve(true);
  }
  fromPage(m: unknown): void {
    for (const fn of this.listeners) fn(m);
  }
  get listening(): number {
    return this.listeners.size;
  }
}

export class FakePanel {
  readonly webview = new FakeWebview();
  private readonly disposeListeners: Listener<void>[] = [];
  constructor(
    readonly viewType: string,
    public title: string,
    /** The options createWebviewPanel was given. */
    readonly createdWith?: { enableScripts?: boolean; localResourceRoots?: FakeUri[] },
  ) {}
  onDidDispose(fn: Listener<void>): { dispose(): void } {
    this.disposeListeners.push(fn);
    return { dispose: () => undefined };
  }
  reveal(): void {}
  dispose(): void {
    for (const fn of this.disposeListeners.splice(0)) fn();
  }
}

/** A vscode.LogOutputChannel that keeps its lines ("warn: ..."). */
export function fakeLog(): {
  lines: string[];
  info(s: string): void;
  warn(s: string): void;
  error(s: string): void;
} {
  const lines: string[] = [];
  return {
    lines,
    info: (s) => lines.push(`info: ${s}`),
    warn: (s) => lines.push(`warn: ${s}`),
    error: (s) => lines.push(`error: ${s}`),
  };
}

/** The panels createWebviewPanel made, newest last. */
export const createdPanels: FakePanel[] = [];

/** What `vscode.workspace` tells: whether the workspace is trusted (a test sets it). */
export const fakeWorkspace = { isTrusted: false };

const fake = {
  Uri: FakeUri,
  workspace: fakeWorkspace,
  ViewColumn: { Active: -1, Beside: -2, One: 1 },
  window: {
    createWebviewPanel(viewType: string, title: string, _show: unknown, options?: FakePanel["createdWith"]) {
      const panel = new FakePanel(viewType, title, options);
      createdPanels.push(panel);
      return panel;
    },
  },
};

const FAKE_ID = "/fake/node_modules/vscode/index.js";
const M = Module as unknown as {
  _resolveFilename: (this: unknown, request: string, ...rest: unknown[]) => string;
  _cache: Record<string, unknown>;
};
const resolve = M._resolveFilename;
M._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  return request === "vscode" ? FAKE_ID : resolve.call(this, request, ...rest);
};
const mod = new Module(FAKE_ID);
mod.exports = fake;
mod.loaded = true;
M._cache[FAKE_ID] = mod;
