// Lint runs and diagnostics: a run is scheduled after each edit (debounced), lints the document's current
// text with its context, adds the extra providers' findings and publishes them for that version.
import { buildFacts } from "../lint/buildContext";
import { compareSpans } from "../lint/engine";
import { EDITOR_LIMITS, LintDocument } from "../lint/lintDocument";
import { normalizeLineEnds } from "../lint/lineEnds";
import { cudaParser, type CudaParser } from "../lint/parser";
import { isSuppressed, parseSuppressions } from "../lint/suppressions";
import { rules } from "../rules/index";
import type { Finding } from "../rules/rule";
import { errorMessage } from "../util/errorMessage";
import type { DocumentContext, OpenDocument, ServerContext } from "./context";
import { filePath, toDiagnostic } from "./convert";

/**
 * Syntax trees kept for incremental reparsing: the most recently linted documents only. Wasm memory never
 * shrinks, so trees for every open file (a thousand, after "open all") would hold the peak forever; a
 * document whose tree was dropped reparses from scratch on its next edit (a few ms for a typical file).
 */
const MAX_LIVE_TREES = 24;
/** A rule this slow on one document is paused for it (until reopened), so typing does not stall on it. */
const SLOW_RULE_MS = 750;

/** A finding at the top of the file that says why (part of) the lint did not run. */
const skipped = (message: string): Finding => ({
  rule: "lint-skipped",
  severity: "information",
  message,
  span: { startLine: 0, startColumn: 0, endLine: 0, endColumn: 0 },
  fixes: [],
});

export class Linter {
  /** Resolves to undefined when the parser failed to load (reported through the server status). */
  readonly parser: Promise<CudaParser | undefined>;
  /** URIs whose syntax tree is kept, least recently used first. */
  private readonly liveTrees = new Set<string>();
  /** Rule failures already logged (rule and first line), so a rule failing on every keystroke logs once. */
  private readonly loggedFailures = new Set<string>();

  constructor(private readonly ctx: ServerContext) {
    this.parser = cudaParser().then(
      (p): CudaParser | undefined => p,
      (err: unknown) => {
        const message = `the CUDA parser did not load: ${errorMessage(err)}`;
        ctx.connection.console.error(message);
        ctx.status({ health: "error", message });
        return undefined;
      },
    );
  }

  /** Lints `uri` after `delay` ms, replacing a run already scheduled for it. */
  schedule(uri: string, delay: number): void {
    const entry = this.ctx.documents.get(uri);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      void this.ctx.guardAsync("lint", undefined, () => this.lintNow(uri));
    }, delay);
  }

  relintAll(): void {
    for (const uri of this.ctx.documents.keys()) this.schedule(uri, 0);
  }

  /** Code actions and hovers need findings and a tree for the text the client sees: lint now if a run is pending. */
  async flush(uri: string): Promise<OpenDocument | undefined> {
    const entry = this.ctx.documents.get(uri);
    if (!entry) return undefined;
    if (entry.findingsVersion !== entry.doc.version) {
      clearTimeout(entry.timer);
      entry.timer = undefined;
      await this.lintNow(uri);
    }
    return this.ctx.documents.get(uri);
  }

  /** Marks `uri`'s tree most recently used and frees the least recently used beyond MAX_LIVE_TREES. */
  keepTree(uri: string, entry: OpenDocument): void {
    this.liveTrees.delete(uri);
    if (!entry.lint) return;
    this.liveTrees.add(uri);
    for (const old of this.liveTrees) {
      if (this.liveTrees.size <= MAX_LIVE_TREES) break;
      this.liveTrees.delete(old);
      this.ctx.documents.get(old)?.lint?.dispose();
    }
  }

  forget(uri: string): void {
    this.liveTrees.delete(uri);
  }

  /** Lints the current text now and publishes; the version guard drops results a newer edit made stale. */
  private async lintNow(uri: string): Promise<void> {
    const parser = await this.parser;
    const entry = this.ctx.documents.get(uri);
    if (!entry || !parser) return;
    const dc = await this.ctx.contexts.get(uri);
    if (this.ctx.documents.get(uri) !== entry) return;
    this.ctx.contexts.announceTargets(uri, dc);
    const version = entry.doc.version;
    const findings = dc.settings.enable ? this.findings(entry, dc, parser) : [];
    entry.findings = findings;
    entry.findingsVersion = version;
    this.keepTree(uri, entry);
    await this.ctx.connection.sendDiagnostics({ uri, version, diagnostics: findings.map(toDiagnostic) });
  }

  private findings(entry: OpenDocument, dc: DocumentContext, p: CudaParser): Finding[] {
    const findings = this.ruleFindings(entry, dc, p);
    findings.push(...this.providerFindings(entry));
    return findings.sort((a, b) => compareSpans(a.span, b.span));
  }

  /** The document's LintDocument, built for the size limit in force. */
  private lintDocumentOf(entry: OpenDocument, dc: DocumentContext, p: CudaParser): LintDocument {
    const maxChars = dc.settings.maxFileSizeKB * 1024;
    if (!entry.lint || entry.lintMaxChars !== maxChars) {
      entry.lint?.dispose();
      entry.lint = new LintDocument(p, entry.doc.getText(), { ...EDITOR_LIMITS, maxChars });
      entry.lintMaxChars = maxChars;
    }
    return entry.lint;
  }

  private ruleFindings(entry: OpenDocument, dc: DocumentContext, p: CudaParser): Finding[] {
    const { doc } = entry;
    // Another backend's source (a ROCm kernel's): not linted as CUDA; the status item says so.
    if (dc.build.backend !== "cuda") return [];
    const outcome = this.lintDocumentOf(entry, dc, p).lint({
      fileName: filePath(doc.uri) ?? doc.uri,
      targets: dc.targets.archs,
      build: buildFacts(dc.build),
      rules: entry.pausedRules.size === 0 ? rules : rules.filter((r) => !entry.pausedRules.has(r.id)),
      ruleOptions: {
        launchCheckMacros: [...dc.config.launchCheckMacros, ...dc.settings.launchCheckMacros],
        conventions: dc.config.conventions,
        headerRoot: dc.root,
      },
      // The user's settings win over the shared workspace file.
      severity: { ...dc.config.severity, ...dc.settings.severity },
    });
    if (outcome.kind === "skipped") return [skipped(outcome.reason)];
    const findings = [...outcome.findings];
    for (const [rule, ms] of outcome.timings) {
      if (ms < SLOW_RULE_MS) continue;
      entry.pausedRules.set(rule, ms);
      this.ctx.connection.console.warn(
        `rule ${rule} took ${ms.toFixed(0)} ms on ${doc.uri}; paused for this document`,
      );
    }
    for (const [rule, ms] of entry.pausedRules)
      findings.push(
        skipped(
          `${rule} is paused for this file: it took ${ms.toFixed(0)} ms here (reopen the file to retry; \`cuda-kernel-dev lint\` still runs it)`,
        ),
      );
    for (const f of outcome.failures) {
      const key = `${f.rule}\n${f.message.split("\n")[0]}`;
      if (this.loggedFailures.has(key)) continue;
      this.loggedFailures.add(key);
      this.ctx.connection.console.error(`rule ${f.rule} failed on ${doc.uri}: ${f.message}`);
    }
    return findings;
  }

  private providerFindings({ doc }: OpenDocument): Finding[] {
    const providers = this.ctx.diagnosticProviders;
    if (providers.length === 0) return [];
    const text = normalizeLineEnds(doc.getText());
    // Provider findings honour the same suppression comments as the rules.
    const suppressions = parseSuppressions(text);
    return providers.flatMap((provider) =>
      this.ctx
        .guard("diagnostic provider", [], () =>
          provider({ uri: doc.uri, fileName: filePath(doc.uri), languageId: doc.languageId, text }),
        )
        .filter((f) => !isSuppressed(suppressions, f)),
    );
  }
}

export function register(ctx: ServerContext): void {
  ctx.onDidClose.event((uri) => {
    ctx.linter.forget(uri);
    void ctx.connection.sendDiagnostics({ uri, diagnostics: [] });
  });
  void ctx.linter.parser.then((parser) => {
    if (parser)
      ctx.status({ health: "ok", message: `cuda-kernel-dev language server: ${rules.length} rules` });
  });
}
