// What every feature of the language server shares: the connection, the open documents, the per-document
// settings cache, the linter (the parser and lint runs), the options the client sent, and the guards that
// keep a failing handler from reaching the client. Each feature file (documents.ts, diagnostics.ts, ...) exports register(ctx).
import {
  Emitter,
  ErrorCodes,
  ResponseError,
  type Connection,
  type InitializeParams,
  type ServerCapabilities,
} from "vscode-languageserver/node";
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { WorkspaceConfig } from "../lint/config";
import type { LintDocument } from "../lint/lintDocument";
import type { LintSettings } from "../lint/settings";
import type { BuildContext, ResolvedTargets } from "../lint/buildContext";
import { serverStatusNotification, type ServerStatusParams } from "../protocol";
import type { Finding } from "../rules/rule";
import { errorMessage } from "../util/errorMessage";
import { filePath } from "./convert";
import { Linter } from "./diagnostics";
import { DocumentContexts } from "./documentContext";

/** Lint this long after the last keystroke; initializationOptions.lintDebounceMs overrides (benchmarks use 0). */
const DEFAULT_DEBOUNCE_MS = 120;

export interface OpenDocument {
  doc: TextDocument;
  /** Created on first lint (the parser loads asynchronously); recreated when the size limit changes. */
  lint?: LintDocument;
  lintMaxChars?: number;
  timer?: NodeJS.Timeout;
  /** The findings last published, and the version they belong to (code actions need a match). */
  findings: Finding[];
  findingsVersion: number;
  /** Rules paused for this document because they ran too long, with the time taken. */
  pausedRules: Map<string, number>;
}

/** What linting one document depends on besides its text: settings, the workspace file, targets. */
export interface DocumentContext {
  settings: LintSettings;
  config: WorkspaceConfig;
  targets: ResolvedTargets;
  /** The workspace folder holding the document: project headers above it are not read. */
  root?: string;
  /** The file's build context (its targets are `targets`). */
  build: BuildContext;
}

/** What an extra diagnostic provider sees: one open document. */
export interface ProvidedDocument {
  uri: string;
  /** Local path for file: URIs. */
  fileName?: string;
  languageId: string;
  text: string;
}
/** Extra diagnostics beside the rules (e.g. benchmark-spec checks): a feature pushes one onto ctx.diagnosticProviders. */
export type DiagnosticProvider = (doc: ProvidedDocument) => Finding[];

export class ServerContext {
  readonly documents = new Map<string, OpenDocument>();
  /** The settings cache: each document's context, pulled once and kept until settings change. */
  readonly contexts: DocumentContexts;
  /** Lint runs: the parser, scheduling, the syntax trees kept, publishing diagnostics. */
  readonly linter: Linter;
  readonly diagnosticProviders: DiagnosticProvider[] = [];
  /** What the server announces in `initialize`; each feature adds its own capability. */
  readonly capabilities: ServerCapabilities = {};
  /** A document closed (its entry is already gone): features drop what they keep for it. */
  readonly onDidClose = new Emitter<string>();
  /** `shutdown` was received: features free what they hold; requests are refused from now on. */
  readonly onShutdown = new Emitter<void>();
  shutDown = false;

  // From `initialize`.
  workspaceRoots: string[] = [];
  canPullConfiguration = false;
  /** Settings sent by a client that cannot answer workspace/configuration. */
  pushedSettings: unknown;
  debounceMs = DEFAULT_DEBOUNCE_MS;
  /** This machine's GPU (SM number), when the client found one: assumed where no targets are declared. */
  machineGpuArch: number | undefined;

  // The protocol allows notifications only after the handshake: status is held until `initialized`.
  readonly initialized: Promise<void>;
  private resolveInitialized: () => void = () => undefined;

  constructor(readonly connection: Connection) {
    this.initialized = new Promise<void>((resolve) => (this.resolveInitialized = resolve));
    this.contexts = new DocumentContexts(this);
    this.linter = new Linter(this);
  }

  /** Reads what the client told `initialize`: workspace folders, whether it can be asked for settings, options. */
  initialize(params: InitializeParams): void {
    this.canPullConfiguration = params.capabilities.workspace?.configuration === true;
    this.workspaceRoots = (params.workspaceFolders ?? [])
      .map((f) => filePath(f.uri))
      .filter((p): p is string => p !== undefined);
    if (this.workspaceRoots.length === 0 && params.rootUri) {
      const root = filePath(params.rootUri);
      if (root) this.workspaceRoots = [root];
    }
    // Untyped on the wire (InitializationOptions in protocol.ts): each field is checked.
    const init: unknown = params.initializationOptions;
    if (init !== null && typeof init === "object") {
      const o = init as Record<string, unknown>;
      if (typeof o.lintDebounceMs === "number" && o.lintDebounceMs >= 0) this.debounceMs = o.lintDebounceMs;
      if (o.settings !== undefined) this.pushedSettings = o.settings;
    }
  }

  markInitialized(): void {
    this.resolveInitialized();
  }

  status(p: ServerStatusParams): void {
    void this.initialized.then(() => this.connection.sendNotification(serverStatusNotification, p));
  }

  /**
   * The answer to any request after `shutdown`: the protocol says such requests error with
   * InvalidRequest. Undefined before it.
   */
  refusal(): ResponseError<void> | undefined {
    return this.shutDown
      ? new ResponseError(ErrorCodes.InvalidRequest, "the server is shut down (shutdown was received)")
      : undefined;
  }

  /** Runs a handler body; an exception is logged and the fallback returned instead of reaching the client. */
  guard<T>(what: string, fallback: T, body: () => T): T {
    try {
      return body();
    } catch (err) {
      this.logFailure(what, err);
      return fallback;
    }
  }

  async guardAsync<T>(what: string, fallback: T, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (err) {
      this.logFailure(what, err);
      return fallback;
    }
  }

  private logFailure(what: string, err: unknown): void {
    const detail = err instanceof Error && err.stack !== undefined ? err.stack : errorMessage(err);
    this.connection.console.error(`${what}: ${detail}`);
  }
}
