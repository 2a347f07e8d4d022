// The language server process: started by the extension over IPC, or by `cuda-kernel-dev lsp --stdio`.
// Importing this module starts it (the transport comes from the command line: --node-ipc or --stdio).
import { fileURLToPath } from "node:url";
import {
  CodeActionKind,
  createConnection,
  DiagnosticSeverity,
  DidChangeConfigurationNotification,
  ProposedFeatures,
  SymbolKind,
  TextDocumentSyncKind,
  type CodeAction,
  type Connection,
  type Diagnostic,
  type DocumentSymbol,
  type Hover,
  type Range,
  type TextDocumentContentChangeEvent,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { SpecFindingsCache } from "./bench/specFindingsCache";
import { hoverAt } from "./hover/hover";
import { formatArch } from "./lint/arch";
import { configFor, type WorkspaceConfig } from "./lint/config";
import { compareSpans } from "./lint/engine";
import { EDITOR_LIMITS, LintDocument } from "./lint/lintDocument";
import { cudaParser, type CudaParser, type TextChange } from "./lint/parser";
import { ruleDocUri } from "./lint/ruleDocs";
import { isSuppressed, parseSuppressions } from "./lint/suppressions";
import { readSettings, type LintSettings } from "./lint/settings";
import { cudaSymbols } from "./lint/symbols";
import { resolveTargets, type ResolvedTargets } from "./lint/targets";
import {
  serverStatusNotification,
  targetsNotification,
  type ServerStatusParams,
  type TargetsParams,
} from "./protocol";
import { rules } from "./rules/index";
import type { Finding, Severity, Span } from "./rules/rule";

/** What an extra diagnostic provider sees: one open document. */
export interface ProvidedDocument {
  uri: string;
  /** Local path for file: URIs. */
  fileName?: string;
  languageId: string;
  text: string;
}
/** Extra diagnostics beside the rules (e.g. benchmark-spec checks): plug new providers in here. */
export type DiagnosticProvider = (doc: ProvidedDocument) => Finding[];
/** Spec findings per open document, kept so that edits which cannot change them skip the kernel scan. */
const specCaches = new Map<string, SpecFindingsCache>();
const diagnosticProviders: DiagnosticProvider[] = [
  (doc) => {
    let cache = specCaches.get(doc.uri);
    if (!cache) specCaches.set(doc.uri, (cache = new SpecFindingsCache()));
    return cache.findings(doc.text);
  },
];

/** Lint this long after the last keystroke; initializationOptions.lintDebounceMs overrides (benchmarks use 0). */
const DEFAULT_DEBOUNCE_MS = 120;
/**
 * Syntax trees kept for incremental reparsing: the most recently linted documents only. Wasm memory never
 * shrinks, so trees for every open file (a thousand, after "open all") would hold the peak forever; a
 * document whose tree was dropped reparses from scratch on its next edit (a few ms for a typical file).
 */
const MAX_LIVE_TREES = 24;
/** A rule this slow on one document is paused for it (until reopened), so typing does not stall on it. */
const SLOW_RULE_MS = 750;
const SOURCE = "cuda-kernel-dev";
const knownRules = new Set(rules.map((r) => r.id));

interface OpenDocument {
  doc: TextDocument;
  /** Created on first lint (the parser loads asynchronously); recreated when the size limit changes. */
  lint?: LintDocument;
  lintMaxChars?: number;
  timer?: NodeJS.Timeout;
  /** The findings last published, and the version they belong to (code actions need a match). */
  findings: Finding[];
  findingsVersion: number;
  /** Rules paused for this document because they ran longer than SLOW_RULE_MS, with the time taken. */
  pausedRules: Map<string, number>;
}

interface DocumentContext {
  settings: LintSettings;
  config: WorkspaceConfig;
  targets: ResolvedTargets;
}

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

const toRange = (s: Span): Range => ({
  start: { line: s.startLine, character: s.startColumn },
  end: { line: s.endLine, character: s.endColumn },
});

const sameRange = (a: Range, b: Range): boolean =>
  a.start.line === b.start.line &&
  a.start.character === b.start.character &&
  a.end.line === b.end.line &&
  a.end.character === b.end.character;

const overlaps = (a: Range, b: Range): boolean =>
  !(
    a.end.line < b.start.line ||
    (a.end.line === b.start.line && a.end.character < b.start.character) ||
    b.end.line < a.start.line ||
    (b.end.line === a.start.line && b.end.character < a.start.character)
  );

function filePath(uri: string): string | undefined {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

export function startServer(connection: Connection): void {
  const open = new Map<string, OpenDocument>();
  const contexts = new Map<string, Promise<DocumentContext>>();
  const sentTargets = new Map<string, string>();
  const loggedFailures = new Set<string>();
  let workspaceRoots: string[] = [];
  let canPullConfiguration = false;
  let pushedSettings: unknown;
  let debounceMs = DEFAULT_DEBOUNCE_MS;
  let parser: CudaParser | undefined;
  let parserError: string | undefined;

  // The protocol allows notifications only after the handshake: hold status until `initialized`.
  let markInitialized: () => void = () => undefined;
  const initialized = new Promise<void>((resolve) => (markInitialized = resolve));
  const status = (p: ServerStatusParams): void =>
    void initialized.then(() => connection.sendNotification(serverStatusNotification, p));
  const parserReady = cudaParser().then(
    (p) => {
      parser = p;
    },
    (err: unknown) => {
      parserError = `the CUDA parser did not load: ${err instanceof Error ? err.message : String(err)}`;
      connection.console.error(parserError);
      status({ health: "error", message: parserError });
    },
  );

  /** Runs a handler body; an exception is logged and the fallback returned instead of reaching the client. */
  function guard<T>(what: string, fallback: T, body: () => T): T {
    try {
      return body();
    } catch (err) {
      connection.console.error(`${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return fallback;
    }
  }
  async function guardAsync<T>(what: string, fallback: T, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (err) {
      connection.console.error(`${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return fallback;
    }
  }

  function workspaceRootOf(path: string): string | undefined {
    return workspaceRoots
      .filter((r) => path === r || path.startsWith(r.endsWith("/") ? r : `${r}/`))
      .sort((a, b) => b.length - a.length)[0];
  }

  /** Settings are pulled per document (they may differ per folder) and cached until they change. */
  function contextFor(uri: string): Promise<DocumentContext> {
    let ctx = contexts.get(uri);
    if (!ctx) {
      ctx = (async (): Promise<DocumentContext> => {
        const raw: unknown = canPullConfiguration
          ? await connection.workspace.getConfiguration({ scopeUri: uri, section: "cudaKernelDev" })
          : pushedSettings;
        const settings = readSettings(raw, knownRules);
        const path = filePath(uri);
        const root = path ? workspaceRootOf(path) : undefined;
        const config = path
          ? configFor(path, knownRules, root)
          : { severity: {}, launchCheckMacros: [], problems: [] };
        const explicit =
          settings.targets.length > 0 ? { archs: settings.targets, source: "setting" as const } : undefined;
        // Untitled documents have no folder to search: only the setting or the default apply.
        const targets = resolveTargets({
          file: path ?? "/nonexistent/untitled.cu",
          explicit,
          stopAt: path ? root : "/",
        });
        return { settings, config, targets };
      })();
      // A failed pull is retried next time instead of being cached.
      ctx.catch(() => contexts.delete(uri));
      contexts.set(uri, ctx);
    }
    return ctx;
  }

  function announceTargets(uri: string, ctx: DocumentContext): void {
    const notes = [...ctx.targets.notes, ...ctx.settings.problems, ...ctx.config.problems];
    const params: TargetsParams = {
      uri,
      archs: ctx.targets.archs.map(formatArch),
      source: ctx.targets.source,
      ...(ctx.targets.file ? { file: ctx.targets.file } : {}),
      ...(notes.length > 0 ? { notes } : {}),
    };
    const key = JSON.stringify(params);
    if (sentTargets.get(uri) === key) return;
    sentTargets.set(uri, key);
    void connection.sendNotification(targetsNotification, params);
  }

  function toDiagnostic(f: Finding): Diagnostic {
    const href = ruleDocUri(f.rule);
    return {
      range: toRange(f.span),
      severity: SEVERITY[f.severity],
      code: f.rule,
      source: SOURCE,
      message: f.message,
      ...(href ? { codeDescription: { href } } : {}),
    };
  }

  /** Lints the current text now and publishes; the version guard drops results a newer edit made stale. */
  async function lintNow(uri: string): Promise<void> {
    await parserReady;
    const entry = open.get(uri);
    if (!entry || !parser) return;
    const ctx = await contextFor(uri);
    const current = open.get(uri);
    if (current !== entry) return;
    announceTargets(uri, ctx);
    const version = entry.doc.version;
    const findings = ctx.settings.enable ? runLint(entry, ctx, parser) : [];
    entry.findings = findings;
    entry.findingsVersion = version;
    keepTree(uri, entry);
    await connection.sendDiagnostics({ uri, version, diagnostics: findings.map(toDiagnostic) });
  }

  /** Marks `uri`'s tree most recently used and frees the least recently used beyond MAX_LIVE_TREES. */
  const liveTrees = new Set<string>();
  function keepTree(uri: string, entry: OpenDocument): void {
    liveTrees.delete(uri);
    if (!entry.lint) return;
    liveTrees.add(uri);
    for (const old of liveTrees) {
      if (liveTrees.size <= MAX_LIVE_TREES) break;
      liveTrees.delete(old);
      open.get(old)?.lint?.dispose();
    }
  }

  /** The document's LintDocument, built for the size limit in force. */
  function lintDocumentOf(entry: OpenDocument, ctx: DocumentContext, p: CudaParser): LintDocument {
    const maxChars = ctx.settings.maxFileSizeKB * 1024;
    if (!entry.lint || entry.lintMaxChars !== maxChars) {
      entry.lint?.dispose();
      entry.lint = new LintDocument(p, entry.doc.getText(), { ...EDITOR_LIMITS, maxChars });
      entry.lintMaxChars = maxChars;
    }
    return entry.lint;
  }

  function runLint(entry: OpenDocument, ctx: DocumentContext, p: CudaParser): Finding[] {
    const { doc } = entry;
    const outcome = lintDocumentOf(entry, ctx, p).lint({
      fileName: filePath(doc.uri) ?? doc.uri,
      targets: ctx.targets.archs,
      rules: entry.pausedRules.size === 0 ? rules : rules.filter((r) => !entry.pausedRules.has(r.id)),
      ruleOptions: {
        launchCheckMacros: [...ctx.config.launchCheckMacros, ...ctx.settings.launchCheckMacros],
      },
      // The user's settings win over the shared workspace file.
      severity: { ...ctx.config.severity, ...ctx.settings.severity },
    });
    const findings: Finding[] = [];
    if (outcome.kind === "skipped") {
      const span = { startLine: 0, startColumn: 0, endLine: 0, endColumn: 0 };
      findings.push({
        rule: "lint-skipped",
        severity: "information",
        message: outcome.reason,
        span,
        fixes: [],
      });
    } else {
      findings.push(...outcome.findings);
      for (const [rule, ms] of outcome.timings) {
        if (ms < SLOW_RULE_MS) continue;
        entry.pausedRules.set(rule, ms);
        connection.console.warn(
          `rule ${rule} took ${ms.toFixed(0)} ms on ${doc.uri}; paused for this document`,
        );
      }
      for (const [rule, ms] of entry.pausedRules) {
        const span = { startLine: 0, startColumn: 0, endLine: 0, endColumn: 0 };
        const message = `${rule} is paused for this file: it took ${ms.toFixed(0)} ms here (reopen the file to retry; \`cuda-kernel-dev lint\` still runs it)`;
        findings.push({ rule: "lint-skipped", severity: "information", message, span, fixes: [] });
      }
      for (const f of outcome.failures) {
        const key = `${f.rule}\n${f.message.split("\n")[0]}`;
        if (loggedFailures.has(key)) continue;
        loggedFailures.add(key);
        connection.console.error(`rule ${f.rule} failed on ${doc.uri}: ${f.message}`);
      }
    }
    const text = doc.getText();
    // Provider findings honour the same suppression comments as the rules.
    const suppressions = diagnosticProviders.length > 0 ? parseSuppressions(text) : undefined;
    for (const provider of diagnosticProviders) {
      const extra = guard("diagnostic provider", [], () =>
        provider({ uri: doc.uri, fileName: filePath(doc.uri), languageId: doc.languageId, text }),
      );
      findings.push(...extra.filter((f) => !suppressions || !isSuppressed(suppressions, f)));
    }
    return findings.sort((a, b) => compareSpans(a.span, b.span));
  }

  function schedule(uri: string, delay: number): void {
    const entry = open.get(uri);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      void guardAsync("lint", undefined, () => lintNow(uri));
    }, delay);
  }

  /** Code actions and hovers need findings and a tree for the text the client sees: lint now if a run is pending. */
  async function flush(uri: string): Promise<OpenDocument | undefined> {
    const entry = open.get(uri);
    if (!entry) return undefined;
    if (entry.findingsVersion !== entry.doc.version) {
      clearTimeout(entry.timer);
      entry.timer = undefined;
      await lintNow(uri);
    }
    return open.get(uri);
  }

  connection.onInitialize((params) => {
    canPullConfiguration = params.capabilities.workspace?.configuration === true;
    workspaceRoots = (params.workspaceFolders ?? [])
      .map((f) => filePath(f.uri))
      .filter((p): p is string => p !== undefined);
    if (workspaceRoots.length === 0 && params.rootUri) {
      const root = filePath(params.rootUri);
      if (root) workspaceRoots = [root];
    }
    const init: unknown = params.initializationOptions;
    if (init !== null && typeof init === "object") {
      const o = init as Record<string, unknown>;
      if (typeof o.lintDebounceMs === "number" && o.lintDebounceMs >= 0) debounceMs = o.lintDebounceMs;
      if (o.settings !== undefined) pushedSettings = o.settings;
    }
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        hoverProvider: true,
        documentSymbolProvider: true,
      },
      serverInfo: { name: SOURCE, version: "0.1.0" },
    };
  });

  connection.onInitialized(() => {
    markInitialized();
    if (canPullConfiguration)
      void connection.client
        .register(DidChangeConfigurationNotification.type, { section: "cudaKernelDev" })
        .catch(() => undefined);
  });

  /** Settings, build files or the config file changed: every open document re-resolves and relints. */
  function invalidateAll(): void {
    contexts.clear();
    for (const uri of open.keys()) schedule(uri, 0);
  }

  connection.onDidChangeConfiguration((change) => {
    guard("didChangeConfiguration", undefined, () => {
      const s: unknown = change.settings;
      if (s !== null && typeof s === "object" && "cudaKernelDev" in s) pushedSettings = s.cudaKernelDev;
      invalidateAll();
    });
  });
  connection.onDidChangeWatchedFiles(() => guard("didChangeWatchedFiles", undefined, invalidateAll));

  connection.onDidOpenTextDocument((p) => {
    guard("didOpen", undefined, () => {
      const { uri, languageId, version, text } = p.textDocument;
      open.get(uri)?.lint?.dispose();
      open.set(uri, {
        doc: TextDocument.create(uri, languageId, version, text),
        findings: [],
        findingsVersion: -1,
        pausedRules: new Map(),
      });
      schedule(uri, 0);
    });
  });

  connection.onDidChangeTextDocument((p) => {
    guard("didChange", undefined, () => {
      const entry = open.get(p.textDocument.uri);
      if (!entry) return;
      entry.doc = applyChanges(entry, p.contentChanges, p.textDocument.version);
      schedule(p.textDocument.uri, debounceMs);
    });
  });

  connection.onDidCloseTextDocument((p) => {
    guard("didClose", undefined, () => {
      const { uri } = p.textDocument;
      specCaches.delete(uri);
      const entry = open.get(uri);
      if (entry) {
        clearTimeout(entry.timer);
        entry.lint?.dispose();
      }
      open.delete(uri);
      liveTrees.delete(uri);
      contexts.delete(uri);
      sentTargets.delete(uri);
      void connection.sendDiagnostics({ uri, diagnostics: [] });
    });
  });

  connection.onCodeAction((p) =>
    guardAsync("codeAction", [], async () => {
      const entry = await flush(p.textDocument.uri);
      if (!entry) return [];
      const actions: CodeAction[] = [];
      for (const f of entry.findings) {
        const diagnostic = toDiagnostic(f);
        if (!overlaps(diagnostic.range, p.range)) continue;
        // Answer for the diagnostics the client holds; fall back to position when it sent none.
        const held = p.context.diagnostics.find(
          (d) => d.code === f.rule && sameRange(d.range, diagnostic.range),
        );
        if (p.context.diagnostics.length > 0 && !held) continue;
        const diagnostics = [held ?? diagnostic];
        for (const fix of f.fixes) {
          actions.push({
            title: fix.title,
            kind: CodeActionKind.QuickFix,
            diagnostics,
            isPreferred: fix.isPreferred ?? false,
            edit: {
              changes: {
                [p.textDocument.uri]: fix.edits.map((e) => ({ range: toRange(e.span), newText: e.newText })),
              },
            },
          });
        }
        if (f.rule !== "lint-skipped") actions.push(suppressAction(entry.doc, f, diagnostics));
      }
      return actions;
    }),
  );

  connection.onHover((p) =>
    guardAsync<Hover | null>("hover", null, async () => {
      const entry = await flush(p.textDocument.uri);
      if (!entry) return null;
      const tree = entry.lint?.syntaxTree();
      keepTree(p.textDocument.uri, entry);
      const hit = hoverAt(
        typeof tree === "object" ? tree : undefined,
        entry.doc.getText(),
        p.position.line,
        p.position.character,
      );
      return hit ? { contents: { kind: "markdown", value: hit.markdown }, range: toRange(hit.span) } : null;
    }),
  );

  connection.onDocumentSymbol((p) =>
    guardAsync<DocumentSymbol[]>("documentSymbol", [], async () => {
      const entry = await flush(p.textDocument.uri);
      const tree = entry?.lint?.syntaxTree();
      if (entry) keepTree(p.textDocument.uri, entry);
      if (typeof tree !== "object") return [];
      return cudaSymbols(tree).map((s) => ({
        name: s.name,
        detail: s.detail,
        // Kernels get the "event" icon (a bolt): launch entry points stand out from helpers in the outline.
        kind: s.kind === "kernel" ? SymbolKind.Event : SymbolKind.Function,
        range: toRange(s.span),
        selectionRange: toRange(s.nameSpan),
      }));
    }),
  );

  connection.onShutdown(() => {
    for (const entry of open.values()) {
      clearTimeout(entry.timer);
      entry.lint?.dispose();
    }
    open.clear();
  });

  connection.listen();
  void parserReady.then(() => {
    if (!parserError)
      status({ health: "ok", message: `cuda-kernel-dev language server: ${rules.length} rules` });
  });
}

/** Applies LSP changes one by one, telling the syntax tree where each landed so the reparse is incremental. */
function applyChanges(
  entry: OpenDocument,
  changes: TextDocumentContentChangeEvent[],
  version: number,
): TextDocument {
  let doc = entry.doc;
  const edits: TextChange[] = [];
  let full = false;
  for (const change of changes) {
    if ("range" in change) {
      const startOffset = doc.offsetAt(change.range.start);
      const oldEndOffset = doc.offsetAt(change.range.end);
      edits.push({
        startOffset,
        oldEndOffset,
        // Clamped positions: the client may send columns past the line end.
        start: { row: doc.positionAt(startOffset).line, column: doc.positionAt(startOffset).character },
        oldEnd: { row: doc.positionAt(oldEndOffset).line, column: doc.positionAt(oldEndOffset).character },
        newText: change.text,
      });
    } else full = true;
    doc = TextDocument.update(doc, [change], version);
  }
  entry.lint?.update(doc.getText(), full ? undefined : edits);
  return doc;
}

/** "Disable RULE for this line": a suppression comment above the finding, indented like its line. */
function suppressAction(doc: TextDocument, f: Finding, diagnostics: Diagnostic[]): CodeAction {
  const line = f.span.startLine;
  const lineText = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
  const indent = /^[ \t]*/.exec(lineText)?.[0] ?? "";
  return {
    title: `Disable ${f.rule} for this line`,
    kind: CodeActionKind.QuickFix,
    diagnostics,
    edit: {
      changes: {
        [doc.uri]: [
          {
            range: { start: { line, character: 0 }, end: { line, character: 0 } },
            newText: `${indent}// cuda-kernel-dev-disable-next-line ${f.rule}\n`,
          },
        ],
      },
    },
  };
}

startServer(createConnection(ProposedFeatures.all));
