// The Barrier timeline panel: a webview beside the editor that shows the phaseflip debug session's
// timeline (core's page and renderer, timeline-html.ts / timeline-view.ts) and follows it — the
// adapter's `phaseflip/timelineChanged` event makes it fetch the model again, a click in it asks the
// adapter to travel there, a double click on an arrival opens its line. Glue only: the model comes
// from the adapter's `phaseflip/timeline` request, the page from core.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { type TimelineModel, timelineHtml } from '../core/index';
import { DEBUG_TYPE } from './debug-config';

export const SHOW_TIMELINE_COMMAND = 'phaseflip.showTimeline';
const VIEW_TYPE = 'phaseflip.timeline';
const TIMELINE_REQUEST = 'phaseflip/timeline';
const TRAVEL_REQUEST = 'phaseflip/travel';
const TIMELINE_EVENT = 'phaseflip/timelineChanged';

type PageMessage = { type: 'ready' } | { type: 'travel'; cycle: number } | { type: 'reveal'; at: { line: number; file?: string } };

class TimelinePanel {
  private refreshing = false;
  private again = false;

  constructor(
    readonly panel: vscode.WebviewPanel,
    public session: vscode.DebugSession,
  ) {
    panel.webview.onDidReceiveMessage((m: PageMessage) => void this.onMessage(m));
  }

  /** Loads the page with the session's current model (the page then asks for nothing until the next change). */
  async load(): Promise<void> {
    const model = await this.model();
    const webview = this.panel.webview;
    webview.html = timelineHtml(model ?? emptyModel(), { webview: { nonce: randomBytes(16).toString('base64'), cspSource: webview.cspSource } });
  }

  /** Fetches the model again and hands it to the page; changes during a fetch fetch once more after it. */
  async refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.again = false;
        const model = await this.model();
        if (model) await this.panel.webview.postMessage({ type: 'model', model });
      } while (this.again);
    } finally {
      this.refreshing = false;
    }
  }

  private async model(): Promise<TimelineModel | undefined> {
    try {
      const body = (await this.session.customRequest(TIMELINE_REQUEST)) as { model?: TimelineModel } | undefined;
      return body?.model;
    } catch {
      return undefined; // the session ended or has no launch yet: keep the last picture
    }
  }

  private async onMessage(m: PageMessage): Promise<void> {
    if (m.type === 'ready') return this.refresh();
    if (m.type === 'travel') {
      try {
        await this.session.customRequest(TRAVEL_REQUEST, { cycle: m.cycle });
      } catch (e) {
        void vscode.window.showWarningMessage(`Phaseflip: cannot travel to cycle ${m.cycle}: ${e instanceof Error ? e.message : String(e)}`);
      }
      return;
    }
    if (m.type === 'reveal') {
      const program = this.session.configuration.program;
      const file = m.at.file ?? (typeof program === 'string' ? program : undefined);
      if (!file) return;
      const line = new vscode.Position(m.at.line, 0);
      await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(line, line), preserveFocus: true });
    }
  }
}

function emptyModel(): TimelineModel {
  return { end: 0, events: 0, barriers: [], warps: [], markers: [] };
}

export function registerTimelinePanel(context: vscode.ExtensionContext): void {
  let current: TimelinePanel | undefined;
  const phaseflip = (s: vscode.DebugSession | undefined): s is vscode.DebugSession => s?.type === DEBUG_TYPE;
  context.subscriptions.push(
    vscode.commands.registerCommand(SHOW_TIMELINE_COMMAND, async () => {
      const session = phaseflip(vscode.debug.activeDebugSession) ? vscode.debug.activeDebugSession : undefined;
      if (!session) {
        void vscode.window.showInformationMessage('Phaseflip: the barrier timeline shows a running debug session: start one with "Debug Kernel on the Simulator" first. For a file to share, run `phaseflip sim --timeline out.html`.');
        return;
      }
      if (current) {
        current.session = session;
        current.panel.reveal(vscode.ViewColumn.Beside, true);
        await current.refresh();
        return;
      }
      const panel = vscode.window.createWebviewPanel(VIEW_TYPE, 'Barrier Timeline', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [] });
      const view = new TimelinePanel(panel, session);
      current = view;
      panel.onDidDispose(() => {
        if (current === view) current = undefined;
      });
      await view.load();
    }),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
      if (e.event === TIMELINE_EVENT && current && e.session.id === current.session.id) void current.refresh();
    }),
    vscode.debug.onDidChangeActiveDebugSession((s) => {
      // Follow a new phaseflip session (a restart or a second launch); keep the last picture otherwise.
      if (current && phaseflip(s) && s.id !== current.session.id) {
        current.session = s;
        void current.refresh();
      }
    }),
  );
}
