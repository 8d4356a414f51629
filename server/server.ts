// The Phaseflip language server: tracks open CUDA documents with incremental sync, lints them on
// open and (debounced) on change, and answers hover, quick-fix code actions, document symbols and
// code lenses ("Debug kernel" with a launch configuration derived from the kernel's signature) and
// inline-value locations for a stopped debug session.
// Everything is delegated to the engine (core/); this file only speaks LSP. Every handler is
// guarded: an exception is logged to the client's console and the server keeps serving.
import {
  type CodeAction,
  type CodeActionParams,
  type CodeLens,
  type CodeLensParams,
  CodeLensRefreshRequest,
  type Connection,
  type Diagnostic,
  DidChangeConfigurationNotification,
  type DidChangeConfigurationParams,
  type DidChangeTextDocumentParams,
  type DidCloseTextDocumentParams,
  type DidOpenTextDocumentParams,
  type DidChangeWatchedFilesParams,
  type DocumentSymbol,
  type DocumentSymbolParams,
  type Hover,
  type HoverParams,
  type InitializeParams,
  type InlineValue,
  type InlineValueParams,
  MessageType,
  ShowMessageNotification,
  InlineValueVariableLookup,
  type ServerCapabilities,
  type SymbolInformation,
  TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  type AnalysisNote,
  type AnalysisResult,
  type Engine,
  type EngineDocument,
  type Finding,
  type LanguageId,
  type LintOptions,
  Project,
  findingKey,
  headerHoldsCode,
  inlineValueNames,
  isExcludedByConfig,
  kernelOverviews,
  languageForHeader,
  languageForPath,
  launchTemplates,
  lineComment,
  loadEngine,
  mergeDuplicateFinding,
  notOfLanguage,
  suppressionFix,
} from '../core/index';
import {
  SOURCE,
  applyContentChanges,
  fixesOf,
  includedFinding,
  noteToDiagnostic,
  rangesTouch,
  toCodeAction,
  toContentChanges,
  toCodeLenses,
  toCorePosition,
  toOverviewLenses,
  toDiagnostic,
  toDocumentSymbol,
  toHover,
  toSymbolInformation,
} from './convert';
import { type Settings, defaultSettings, parseSettings, toLintOptions } from './settings';

export const SERVER_NAME = 'phaseflip';

/** Quiet time after the last edit before work too slow for every keystroke runs (code lenses, hover IR). */
const QUIET_MS = 300;

/** Language ids the server lints (a Python document is analysed only if it imports tilus); other documents are linted when their path says CUDA/Croqtile. */
const LANGUAGE_IDS: Record<string, LanguageId> = { 'cuda-cpp': 'cuda', cuda: 'cuda', croqtile: 'croqtile', python: 'tilus' };

/** C/C++ language ids: such a document is linted when it is a header holding device code. */
const HEADER_LANGUAGE_IDS = new Set(['cpp', 'c', 'cuda-cpp']);

export function languageForDocument(uri: string, languageId: string, text?: string): LanguageId | undefined {
  const file = uri.replace(/[?#].*$/, '');
  const known = LANGUAGE_IDS[languageId] ?? languageForPath(file);
  if (known) return known;
  // A C/C++ header (`barrier.h`, `pipeline.hpp`) that holds device code is linted as CUDA.
  const header = languageForHeader(file);
  if (header && (HEADER_LANGUAGE_IDS.has(languageId) || languageId === '') && text !== undefined && headerHoldsCode(header, text)) return header;
  return undefined;
}

/** The file path of a `file:` URI; documents without one are analysed alone. */
function pathOfUri(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

export interface ServerOptions {
  /** Folder with tree-sitter.wasm and tree-sitter-cuda.wasm; defaults to the bundle's folder. */
  wasmDir?: string;
  /** Version reported in serverInfo. */
  version?: string;
}

/** Command ids the client registers; the code lenses carry a launch configuration to them. */
export const DEBUG_KERNEL_COMMAND = 'phaseflip.debugKernel';
export const ADD_LAUNCH_CONFIGURATION_COMMAND = 'phaseflip.addLaunchConfiguration';
/** Peeks at locations (uri, position, Location[]): the tilus Script lenses show its barriers or findings with it. */
export const PEEK_LOCATIONS_COMMAND = 'phaseflip.peekLocations';

interface TrackedDocument {
  uri: string;
  /** Its file path (file: URIs only): the translation unit's main file. */
  path: string | undefined;
  language: LanguageId;
  /** The client's version of the text. */
  version: number;
  /** The engine's document: the one copy of the text, updated in place by incremental edits. */
  engine: EngineDocument | undefined;
  /** The text, only while the engine could not open the document (the next edit tries again). */
  unopened: string | undefined;
  /** Cancels the pending lint, if any. */
  cancelLint: (() => void) | undefined;
  /** Findings last published, and the version they belong to (code-action fallback). */
  findings: Finding[];
  findingsVersion: number | null;
  lastError: string | undefined;
  /** Code lenses computed for `version` (a document without edits keeps them; while typing they answer stale). */
  lenses: { version: number; lenses: CodeLens[] } | undefined;
  /** The overview lenses (tilus Scripts) last answered, as JSON: a lint that changes them asks the client to refresh. */
  overviewLenses: string | undefined;
  /** Cancels the pending work for when typing pauses (fresh code lenses, the IR hovers read), if any. */
  cancelQuiet: (() => void) | undefined;
  /** The headers its last analysis read: editing or saving one of them lints it again. */
  dependencies: Set<string>;
  /** The file whose translation unit its last analysis read it in (a header included by it), if another. */
  context: string | undefined;
  /** When its last edit arrived and how long its last analysis took (performance.now() ms): lints defer while typing outpaces them. */
  lastEditAt: number;
  lastLintMs: number;
  /** Syntax problems of its last analysis: a header that does not parse alone is read in an including file's unit. */
  syntaxErrors: number;
  /** Information notes of its last analysis (what was not understood). */
  notes: AnalysisNote[];
}

export class PhaseflipServer {
  private readonly documents = new Map<string, TrackedDocument>();
  /**
   * Findings other documents' translation units located in an open header: header path → (document
   * uri → findings). Published with the header's own findings.
   */
  private readonly foreign = new Map<string, Map<string, Finding[]>>();
  private settings: Settings;
  private lintOptions: LintOptions;
  /** The problems last reported for each `.phaseflip.json`: a file's problems are shown once, again when they change. */
  private readonly configProblems = new Map<string, string>();
  private readonly pullConfiguration: boolean;
  private readonly registerConfiguration: boolean;
  private readonly hierarchicalSymbols: boolean;
  private readonly versionedEdits: boolean;
  private readonly codeLensRefresh: boolean;

  private constructor(
    private readonly connection: Connection,
    private readonly engine: Engine,
    private readonly project: Project,
    private readonly workspaceRoots: string[],
    params: InitializeParams,
    private readonly options: ServerOptions,
  ) {
    const caps = params.capabilities;
    this.pullConfiguration = caps.workspace?.configuration === true;
    this.registerConfiguration = caps.workspace?.didChangeConfiguration?.dynamicRegistration === true;
    this.hierarchicalSymbols = caps.textDocument?.documentSymbol?.hierarchicalDocumentSymbolSupport === true;
    this.versionedEdits = caps.workspace?.workspaceEdit?.documentChanges === true;
    this.codeLensRefresh = caps.workspace?.codeLens?.refreshSupport === true;
    this.settings = parseSettings(params.initializationOptions, (m) => this.warn(m), defaultSettings());
    this.lintOptions = toLintOptions(this.settings);
    this.project.configure({ settings: this.settings.compile, workspaceRoots });
  }

  /** Loads the engine (tree-sitter wasm) and builds a server for this client. */
  static async initialize(
    connection: Connection,
    params: InitializeParams,
    options: ServerOptions = {},
  ): Promise<PhaseflipServer> {
    const wasmDir = options.wasmDir ?? (typeof __dirname !== 'undefined' ? __dirname : undefined);
    const project = new Project();
    const engine = await loadEngine({ wasmDir, project });
    return new PhaseflipServer(connection, engine, project, workspaceRootsOf(params), params, options);
  }

  capabilities(): ServerCapabilities {
    return {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      hoverProvider: true,
      codeActionProvider: { codeActionKinds: ['quickfix'] },
      documentSymbolProvider: true,
      codeLensProvider: { resolveProvider: false },
      inlineValueProvider: true,
    };
  }

  serverInfo(): { name: string; version?: string } {
    return { name: SERVER_NAME, version: this.options.version };
  }

  register(connection: Connection): void {
    connection.onInitialized(this.guard('initialized', () => this.onInitialized(), undefined));
    connection.onDidChangeConfiguration(this.guard('didChangeConfiguration', (p) => this.onDidChangeConfiguration(p), undefined));
    connection.onDidOpenTextDocument(this.guard('didOpen', (p) => this.onDidOpen(p), undefined));
    connection.onDidChangeTextDocument(this.guard('didChange', (p) => this.onDidChange(p), undefined));
    connection.onDidCloseTextDocument(this.guard('didClose', (p) => this.onDidClose(p), undefined));
    connection.onDidChangeWatchedFiles(this.guard('didChangeWatchedFiles', (p) => this.onDidChangeWatchedFiles(p), undefined));
    connection.onHover(this.guard('hover', (p) => this.onHover(p), null));
    connection.onCodeAction(this.guard('codeAction', (p) => this.onCodeAction(p), []));
    connection.onDocumentSymbol(this.guard('documentSymbol', (p) => this.onDocumentSymbol(p), []));
    connection.onCodeLens(this.guard('codeLens', (p) => this.onCodeLens(p), []));
    connection.languages.inlineValue.on(this.guard('inlineValue', (p) => this.onInlineValue(p), []));
    connection.onShutdown(() => this.dispose());
  }

  dispose(): void {
    for (const doc of this.documents.values()) this.forget(doc);
    this.documents.clear();
  }

  // ---- configuration -------------------------------------------------------------------------

  private async onInitialized(): Promise<void> {
    if (this.registerConfiguration) {
      await this.connection.client.register(DidChangeConfigurationNotification.type, { section: 'phaseflip' });
    }
    if (this.pullConfiguration) await this.refreshConfiguration();
  }

  private async onDidChangeConfiguration(params: DidChangeConfigurationParams): Promise<void> {
    if (this.pullConfiguration) {
      await this.refreshConfiguration();
    } else if (params.settings && typeof params.settings === 'object' && 'phaseflip' in params.settings) {
      this.applySettings(parseSettings(params.settings, (m) => this.warn(m), this.settings));
    }
  }

  private async refreshConfiguration(): Promise<void> {
    const raw: unknown = await this.connection.workspace.getConfiguration({ section: 'phaseflip' });
    this.applySettings(parseSettings(raw, (m) => this.warn(m), this.settings));
  }

  private applySettings(next: Settings): void {
    const rulesChanged = JSON.stringify(next.rules) !== JSON.stringify(this.settings.rules);
    const flagsChanged = JSON.stringify(next.compile) !== JSON.stringify(this.settings.compile);
    if (flagsChanged) this.project.configure({ settings: next.compile, workspaceRoots: this.workspaceRoots });
    const lensesChanged = next.codeLens !== this.settings.codeLens;
    this.settings = next;
    if (lensesChanged && this.codeLensRefresh) {
      void this.connection.sendRequest(CodeLensRefreshRequest.type).catch((e: unknown) => this.error(`codeLens/refresh failed: ${describe(e)}`));
    }
    if (!rulesChanged && !flagsChanged) return;
    this.lintOptions = toLintOptions(next);
    for (const doc of this.documents.values()) this.schedule(doc, 0);
  }

  // ---- document sync -------------------------------------------------------------------------

  private onDidOpen({ textDocument }: DidOpenTextDocumentParams): void {
    const path = pathOfUri(textDocument.uri);
    // The editor's copy of an open file is what including translation units read.
    if (path) this.textChanged(path, textDocument.text);
    const language = languageForDocument(textDocument.uri, textDocument.languageId, textDocument.text);
    if (!language) return;
    const existing = this.documents.get(textDocument.uri);
    if (existing) this.forget(existing);
    const doc: TrackedDocument = {
      uri: textDocument.uri,
      path,
      dependencies: new Set(),
      context: undefined,
      syntaxErrors: 0,
      notes: [],
      language,
      version: textDocument.version,
      engine: undefined,
      unopened: undefined,
      cancelLint: undefined,
      findings: [],
      findingsVersion: null,
      lastError: undefined,
      lenses: undefined,
      overviewLenses: undefined,
      cancelQuiet: undefined,
      lastEditAt: -Infinity,
      lastLintMs: 0,
    };
    this.documents.set(doc.uri, doc);
    this.openEngineDocument(doc, textDocument.text);
    this.schedule(doc, 0);
  }

  private onDidChange({ textDocument, contentChanges }: DidChangeTextDocumentParams): void {
    const doc = this.documents.get(textDocument.uri);
    if (!doc) return;
    doc.version = textDocument.version;
    if (doc.engine) {
      // Strings are immutable: holding the text from before the edit costs no copy.
      const before = doc.engine.text;
      try {
        doc.engine.update(toContentChanges(contentChanges));
      } catch (e) {
        this.reportOnce(doc, 'applying an edit', e);
        this.forget(doc);
        this.openEngineDocument(doc, applyContentChanges(before, contentChanges));
      }
    } else {
      this.openEngineDocument(doc, applyContentChanges(doc.unopened ?? '', contentChanges));
    }
    if (doc.path) this.textChanged(doc.path, this.textOf(doc));
    // Edits arriving faster than an analysis takes would queue analyses of versions already stale (and the
    // requests behind them): the analysis waits for a pause as long as the last one took.
    const now = performance.now();
    const typingOutpacesLint = now - doc.lastEditAt < doc.lastLintMs;
    doc.lastEditAt = now;
    this.schedule(doc, typingOutpacesLint ? Math.max(this.settings.debounceMs, doc.lastLintMs) : this.settings.debounceMs);
    this.scheduleQuiet(doc);
  }

  /**
   * An open file's text changed: translation units that read it are out of date. Documents whose
   * last analysis read it are linted again (debounced), the dependency graph's edges being each
   * document's `dependencies`.
   */
  private textChanged(path: string, text: string | undefined): void {
    const before = this.project.generation;
    this.project.setOpenText(path, text);
    if (this.project.generation === before) return;
    for (const other of this.documents.values()) if (other.dependencies.has(path)) this.schedule(other, this.settings.debounceMs);
  }

  /** Headers or flag files (compile_commands.json, compile_flags.txt, .clangd) changed on disk. */
  private onDidChangeWatchedFiles(_params: DidChangeWatchedFilesParams): void {
    this.project.invalidate();
    for (const doc of this.documents.values()) this.schedule(doc, this.settings.debounceMs);
  }

  private onDidClose({ textDocument }: DidCloseTextDocumentParams): void {
    const doc = this.documents.get(textDocument.uri);
    if (!doc) return;
    this.forget(doc);
    this.documents.delete(doc.uri);
    if (doc.path) this.textChanged(doc.path, undefined);
    this.dropForeign(doc);
    void this.connection.sendDiagnostics({ uri: doc.uri, diagnostics: [] });
  }

  /** Opens the engine's document with `text`; when that fails, keeps the text to try again. */
  private openEngineDocument(doc: TrackedDocument, text: string): void {
    try {
      doc.engine = this.engine.openDocument(doc.language, text, doc.path);
      doc.unopened = undefined;
    } catch (e) {
      this.reportOnce(doc, 'parsing', e);
      doc.engine = undefined;
      doc.unopened = text;
    }
  }

  private textOf(doc: TrackedDocument): string {
    return doc.engine?.text ?? doc.unopened ?? '';
  }

  private forget(doc: TrackedDocument): void {
    doc.cancelLint?.();
    doc.cancelLint = undefined;
    doc.cancelQuiet?.();
    doc.cancelQuiet = undefined;
    doc.lenses = undefined;
    doc.overviewLenses = undefined;
    doc.findings = [];
    doc.notes = [];
    doc.dependencies = new Set();
    const disposable = doc.engine as { dispose?: () => void } | undefined;
    try {
      disposable?.dispose?.();
    } catch {
      // a failing dispose only leaks memory
    }
    doc.engine = undefined;
  }

  // ---- linting -------------------------------------------------------------------------------

  /** Lints after `delayMs` of quiet; 0 still defers to the event loop so queued edits coalesce. */
  private schedule(doc: TrackedDocument, delayMs: number): void {
    doc.cancelLint?.();
    const run = () => {
      doc.cancelLint = undefined;
      this.lint(doc);
    };
    if (delayMs <= 0) {
      // setImmediate, not setTimeout(0): timers round up to 1 ms.
      const handle = setImmediate(run);
      doc.cancelLint = () => clearImmediate(handle);
    } else {
      const handle = setTimeout(run, delayMs);
      doc.cancelLint = () => clearTimeout(handle);
    }
  }

  /**
   * Work that would stall typing if done per keystroke, done once edits pause: code lenses for the
   * current text (clients that can are asked to refresh theirs) and the whole-file IR hovers read.
   */
  private scheduleQuiet(doc: TrackedDocument): void {
    doc.cancelQuiet?.();
    const handle = setTimeout(() => {
      doc.cancelQuiet = undefined;
      if (this.documents.get(doc.uri) !== doc) return;
      try {
        doc.engine?.prepareHover();
      } catch (e) {
        this.reportOnce(doc, 'preparing hovers for', e);
      }
      if (doc.lenses && doc.lenses.version !== doc.version) void this.refreshLenses(doc);
    }, Math.max(this.settings.debounceMs, QUIET_MS));
    doc.cancelQuiet = () => clearTimeout(handle);
  }

  private lint(doc: TrackedDocument): void {
    if (this.documents.get(doc.uri) !== doc) return;
    const version = doc.version;
    // The project's .phaseflip.json: its problems are shown to the user; a file it excludes gets no diagnostics
    // (hovers and symbols still answer).
    const config = doc.path ? this.project.projectConfig(doc.path) : undefined;
    if (config) this.showConfigProblems(config.file, config.problems);
    if (config && doc.path && isExcludedByConfig(doc.path, config)) {
      doc.findings = [];
      doc.findingsVersion = version;
      this.setForeign(doc, new Map());
      this.publish(doc, []);
      return;
    }
    let result: AnalysisResult = { findings: [], syntaxProblems: [], symbols: [] };
    const started = performance.now();
    try {
      if (doc.engine) result = doc.engine.analyze(this.lintOptions);
      doc.lastLintMs = performance.now() - started;
      doc.lastError = undefined;
    } catch (e) {
      this.reportOnce(doc, 'analysing', e);
    }
    doc.dependencies = new Set(result.dependencies ?? []);
    doc.context = result.context;
    doc.syntaxErrors = result.syntaxProblems.length;
    // An open header analysed before this unit was known to include it is read again inside it.
    for (const dep of doc.dependencies) {
      const header = this.openDocumentAt(dep);
      if (header && header !== doc && header.context === undefined && header.syntaxErrors > 0 && this.project.contextFor(dep) !== undefined) this.schedule(header, 0);
    }
    // Findings in the document itself; those in a header go to the header when it is open, else to
    // the `#include` line that reaches it.
    const own: Finding[] = [];
    const inHeaders = new Map<string, Finding[]>();
    for (const f of result.findings) {
      const file = f.range.file;
      if (file === undefined || file === doc.path) {
        own.push(f.range.file === undefined ? f : { ...f, range: { start: f.range.start, end: f.range.end } });
      } else if (this.openDocumentAt(file)) {
        // Shown in the header, ranges of this document must name it.
        const related = f.related.map((r) => (r.range.file === undefined && doc.path ? { ...r, range: { ...r.range, file: doc.path } } : r));
        inHeaders.set(file, [...(inHeaders.get(file) ?? []), { ...f, related }]);
      } else {
        const site = result.includeSites?.[file];
        if (site) own.push(includedFinding(f, site));
      }
    }
    this.setForeign(doc, inHeaders);
    doc.findings = this.withSuppressionFixes(own, this.textOf(doc), lineComment(doc.language));
    doc.findingsVersion = version;
    this.publish(doc, (result.notes ?? []).filter((n) => n.range.file === undefined));
    this.refreshOverviewLenses(doc);
  }

  /** Sends a document's diagnostics: its own findings, those other documents found in it, its notes. */
  private publish(doc: TrackedDocument, notes = doc.notes): void {
    doc.notes = notes;
    const version = doc.findingsVersion;
    // Its own findings (a header read in an including file's unit has that file's too), then what other
    // documents found here, once per rule and range: several documents (or launch shapes) reaching it are merged.
    const own = doc.findings.map((f) => ({ ...f, related: [...f.related] }));
    const byKey = new Map(own.map((f) => [findingKey(f), f]));
    const foreign: Finding[] = [];
    let lines: string[] | undefined;
    for (const list of (doc.path ? this.foreign.get(doc.path) : undefined)?.values() ?? []) {
      for (const f of list) {
        const moved: Finding = { ...f, range: { start: f.range.start, end: f.range.end }, related: [...f.related] };
        const fix = suppressionFix((lines ??= this.textOf(doc).split('\n')), moved, lineComment(doc.language));
        const local: Finding = fix ? { ...moved, fixes: [...moved.fixes, fix] } : moved;
        const key = findingKey(local);
        const kept = byKey.get(key);
        if (kept) mergeDuplicateFinding(kept, local);
        else {
          byKey.set(key, local);
          foreign.push(local);
        }
      }
    }
    const diagnostics: Diagnostic[] = own.map((f) => toDiagnostic(f, doc.uri, version));
    for (const f of foreign) diagnostics.push(toDiagnostic(f, doc.uri, null));
    for (const n of notes) diagnostics.push(noteToDiagnostic(n));
    void this.connection.sendDiagnostics({ uri: doc.uri, version: version ?? undefined, diagnostics }).catch((e) => this.error(`publishDiagnostics failed: ${describe(e)}`));
  }

  /** Each finding with the quick fix that suppresses it on its line (after its own fixes, never preferred). */
  private withSuppressionFixes(findings: Finding[], text: string, comment: string): Finding[] {
    if (findings.length === 0) return findings;
    const lines = text.split('\n');
    return findings.map((f) => {
      const fix = suppressionFix(lines, f, comment);
      return fix ? { ...f, fixes: [...f.fixes, fix] } : f;
    });
  }

  private openDocumentAt(path: string): TrackedDocument | undefined {
    for (const d of this.documents.values()) if (d.path === path) return d;
    return undefined;
  }

  /** Records what `doc`'s analysis found in open headers, and re-publishes the headers whose share changed. */
  private setForeign(doc: TrackedDocument, inHeaders: Map<string, Finding[]>): void {
    const touched = new Set<string>(inHeaders.keys());
    for (const [header, byDoc] of this.foreign) if (byDoc.has(doc.uri) && !inHeaders.has(header)) {
      byDoc.delete(doc.uri);
      touched.add(header);
    }
    for (const [header, list] of inHeaders) {
      let byDoc = this.foreign.get(header);
      if (!byDoc) this.foreign.set(header, (byDoc = new Map()));
      byDoc.set(doc.uri, list);
    }
    for (const header of touched) {
      const target = this.openDocumentAt(header);
      if (target && target !== doc && target.findingsVersion !== null) this.publish(target);
    }
  }

  private dropForeign(doc: TrackedDocument): void {
    this.setForeign(doc, new Map());
    if (doc.path) this.foreign.delete(doc.path);
  }

  // ---- language features ---------------------------------------------------------------------

  private onHover(params: HoverParams): Hover | null {
    const doc = this.documents.get(params.textDocument.uri);
    const info = doc?.engine?.hover(toCorePosition(params.position));
    return info && info.markdown ? toHover(info) : null;
  }

  private onCodeAction(params: CodeActionParams): CodeAction[] {
    const doc = this.documents.get(params.textDocument.uri);
    if (!doc) return [];
    const only = params.context.only;
    if (only && !only.some((k) => k === '' || k === 'quickfix' || 'quickfix'.startsWith(`${k}.`))) return [];

    let diagnostics = params.context.diagnostics.filter((d) => d.source === SOURCE && rangesTouch(d.range, params.range));
    if (params.context.diagnostics.every((d) => d.source !== SOURCE)) {
      // Clients that send no diagnostics in the context get the ones last published for the range.
      diagnostics = doc.findings
        .map((f) => toDiagnostic(f, doc.uri, doc.findingsVersion))
        .filter((d) => rangesTouch(d.range, params.range));
    }

    const actions: CodeAction[] = [];
    for (const diagnostic of diagnostics) {
      const carried = fixesOf(diagnostic);
      const fixes = carried?.fixes ?? this.lookupFixes(doc, diagnostic);
      const version = carried ? carried.version : doc.findingsVersion;
      for (const fix of fixes) actions.push(toCodeAction(fix, diagnostic, doc.uri, version, this.versionedEdits));
    }
    return actions;
  }

  private lookupFixes(doc: TrackedDocument, d: Diagnostic) {
    const same = doc.findings.find(
      (f) =>
        f.code === d.code &&
        f.range.start.line === d.range.start.line &&
        f.range.start.character === d.range.start.character &&
        f.range.end.line === d.range.end.line &&
        f.range.end.character === d.range.end.character,
    );
    return same?.fixes ?? [];
  }

  private onDocumentSymbol(params: DocumentSymbolParams): DocumentSymbol[] | SymbolInformation[] {
    const doc = this.documents.get(params.textDocument.uri);
    if (!doc?.engine) return [];
    // While an analysis of newer edits is pending, the last one answers (never analyse here for a request).
    const symbols = (doc.engine.analysisCurrent ? undefined : doc.engine.lastAnalysis())?.symbols ?? doc.engine.analyze(this.lintOptions).symbols;
    return this.hierarchicalSymbols
      ? symbols.map(toDocumentSymbol)
      : symbols.map((s) => toSymbolInformation(s, doc.uri));
  }

  /**
   * "Debug kernel" and "Add to launch.json" above every kernel the simulator can launch; above a kernel whose
   * extent the language gives (a tilus Script), its autotune space, barriers and findings.
   */
  private async onCodeLens(params: CodeLensParams): Promise<CodeLens[]> {
    const doc = this.documents.get(params.textDocument.uri);
    if (!doc || !this.settings.codeLens) return [];
    const overview = this.overviewLenses(doc);
    doc.overviewLenses = JSON.stringify(overview);
    if (doc.lenses?.version === doc.version) return [...doc.lenses.lenses, ...overview];
    // While the analysis of newer edits is pending (typing), the last lenses answer: reading the launch
    // templates parses the whole file, so fresh ones are made once edits pause (scheduleQuiet).
    if (doc.lenses && doc.cancelLint) return [...doc.lenses.lenses, ...overview];
    return [...((await this.refreshLenses(doc)) ?? []), ...overview];
  }

  /**
   * The overview lenses, from the analysis the diagnostics come from (while newer edits wait for theirs, the
   * last one, as document symbols do); a file its `.phaseflip.json` excludes shows no findings there either.
   */
  private overviewLenses(doc: TrackedDocument): CodeLens[] {
    if (!doc.engine) return [];
    // Never analysed for a lens request: before the first lint there are none, and that lint asks for a refresh.
    const result = doc.engine.analysisCurrent ? doc.engine.analyze(this.lintOptions) : doc.engine.lastAnalysis();
    if (!result?.kernels?.some((k) => k.extent)) return [];
    const config = doc.path ? this.project.projectConfig(doc.path) : undefined;
    const excluded = config !== undefined && doc.path !== undefined && isExcludedByConfig(doc.path, config);
    return toOverviewLenses(kernelOverviews(excluded ? { ...result, findings: [] } : result), doc.uri, PEEK_LOCATIONS_COMMAND);
  }

  /** After a lint: when the overview lenses the client last got changed (findings came or went), asks it to refresh them. */
  private refreshOverviewLenses(doc: TrackedDocument): void {
    if (doc.overviewLenses === undefined || !this.codeLensRefresh || !this.settings.codeLens) return;
    const next = JSON.stringify(this.overviewLenses(doc));
    if (next === doc.overviewLenses) return;
    doc.overviewLenses = next;
    void this.connection.sendRequest(CodeLensRefreshRequest.type).catch((e: unknown) => this.error(`codeLens/refresh failed: ${describe(e)}`));
  }

  /** Makes the code lenses of the document's current text; asks the client to refresh when they changed. */
  private async refreshLenses(doc: TrackedDocument): Promise<CodeLens[] | undefined> {
    const version = doc.version;
    const wasmDir = this.options.wasmDir ?? (typeof __dirname !== 'undefined' ? __dirname : undefined);
    const templates = await launchTemplates(this.textOf(doc), doc.language, doc.uri, wasmDir);
    const lenses = toCodeLenses(templates, doc.uri, DEBUG_KERNEL_COMMAND, ADD_LAUNCH_CONFIGURATION_COMMAND);
    if (this.documents.get(doc.uri) !== doc || doc.version !== version) return lenses;
    const changed = doc.lenses !== undefined && JSON.stringify(doc.lenses.lenses) !== JSON.stringify(lenses);
    doc.lenses = { version, lenses };
    if (changed && this.codeLensRefresh) {
      void this.connection.sendRequest(CodeLensRefreshRequest.type).catch((e: unknown) => this.error(`codeLens/refresh failed: ${describe(e)}`));
    }
    return lenses;
  }

  /**
   * Variable lookups from the stopped function's start to the stopped line: the editor shows the
   * values the debug adapter's Locals scope has for those names, and skips the others.
   */
  private onInlineValue(params: InlineValueParams): InlineValue[] {
    const doc = this.documents.get(params.textDocument.uri);
    if (!doc) return [];
    const text = this.textOf(doc);
    // A Python file that does not import tilus is not ours: another debugger's session gets nothing from us there.
    if (notOfLanguage(doc.language, text) !== undefined) return [];
    const stop = params.context.stoppedLocation.end.line;
    return inlineValueNames(text, doc.language, stop, params.range.start.line, params.range.end.line).map((n) =>
      InlineValueVariableLookup.create({ start: { line: n.line, character: n.start }, end: { line: n.line, character: n.end } }, n.name, true),
    );
  }

  // ---- error handling ------------------------------------------------------------------------

  /** Wraps a handler so that a throw or rejection is logged and answered with `fallback`. */
  private guard<P, R>(name: string, handler: (params: P) => R | Promise<R>, fallback: R): (params: P) => Promise<R> {
    return async (params: P) => {
      try {
        return await handler(params);
      } catch (e) {
        this.error(`${name} failed: ${describe(e)}`);
        return fallback;
      }
    };
  }

  private reportOnce(doc: TrackedDocument, what: string, e: unknown): void {
    const message = `${what} ${doc.uri} failed: ${describe(e)}`;
    if (doc.lastError === message) return;
    doc.lastError = message;
    this.error(message);
  }

  /** Shows what is wrong with a `.phaseflip.json` (unknown keys, wrong types) once per version of its problems. */
  private showConfigProblems(file: string, problems: readonly string[]): void {
    const key = problems.join('\n');
    if ((this.configProblems.get(file) ?? '') === key) return;
    this.configProblems.set(file, key);
    if (!problems.length) return;
    for (const p of problems) this.warn(p);
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''}: see the Phaseflip output)` : '';
    void this.connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message: `Phaseflip: ${problems[0]}${more}` }).catch((e: unknown) => this.error(`window/showMessage failed: ${describe(e)}`));
  }

  private warn(message: string): void {
    this.connection.console.warn(`phaseflip: ${message}`);
  }

  private error(message: string): void {
    this.connection.console.error(`phaseflip: ${message}`);
  }
}

/** The workspace folders' paths (file: URIs only), where flag-file discovery stops walking up. */
function workspaceRootsOf(params: InitializeParams): string[] {
  const uris = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
  return uris.map(pathOfUri).filter((p): p is string => p !== undefined);
}

function describe(e: unknown): string {
  if (e instanceof Error) return e.stack ?? `${e.name}: ${e.message}`;
  return String(e);
}
