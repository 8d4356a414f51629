// End-to-end scenario of the barrier timeline (issue 18): the packaged .vsix in code-server, a debug
// session of the examples' ring stopped at a phase flip, the Barrier Timeline panel opened from the
// command palette, and a click in it travelling back in time. Screenshots: timeline-phase-flip-stop,
// timeline-after-travel (test/e2e/artifacts/).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, launchBrowser } from './harness/browser';
import { type CodeServer, extensionHostErrors, freshStateDir, installVsix, startCodeServer } from './harness/code-server';
import { artifactsDir, repoRoot } from './harness/paths';
import { addFunctionBreakpoint, openFile, openWorkbench, pick, runCommand, screenshot } from './harness/workbench';
import { scratchWorkspace } from './harness/workspace';

const UI_TIMEOUT_MS = 30_000;
const LAUNCH = 'Phaseflip: ring (timeline)';
const DEADLOCK_LAUNCH = 'Phaseflip: ring without bootstrap (timeline)';
const RING_ARGS = { kernel: 'stream_sum', grid: 1, block: 160, args: ['in=f32[6144]:iota', 'out=f32[128]', 'num_tiles=6'] };

interface TimelineWindow {
  phaseflipTimeline: { xOf(t: number): number; yOf(row: string): number; model(): PageModel };
}
interface PageModel {
  cursor?: number;
  barriers: { key: string; label: string; flips: { time: number }[] }[];
}

function packageVsix(dir: string): string {
  const vsix = path.join(dir, 'phaseflip.vsix');
  try {
    execFileSync('npm', ['run', '--silent', 'package', '--', '--out', vsix], { cwd: repoRoot, stdio: 'pipe', timeout: 180_000 });
  } catch (error) {
    const e = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`npm run package failed:\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
  }
  return vsix;
}

/** The webview frame that holds the timeline page (webviews are iframes within iframes). */
async function timelineFrame(page: Page): Promise<Frame> {
  const deadline = Date.now() + UI_TIMEOUT_MS;
  for (;;) {
    for (const f of page.frames()) {
      const ok = await f.evaluate(() => Boolean((window as unknown as Partial<TimelineWindow>).phaseflipTimeline)).catch(() => false);
      if (ok) return f;
    }
    if (Date.now() > deadline) throw new Error(`no frame shows the timeline (frames: ${page.frames().map((f) => f.url()).join(', ')})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('the Barrier Timeline panel in code-server', () => {
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const scratch: string[] = [];
  let failed = false;

  beforeAll(async () => {
    failed = true;
    mkdirSync(artifactsDir, { recursive: true });
    const stateDir = freshStateDir();
    scratch.push(stateDir);
    await installVsix(stateDir, packageVsix(stateDir));
    const folder = scratchWorkspace([
      { type: 'phaseflip', request: 'launch', name: LAUNCH, program: '${workspaceFolder}/good/producer_missing_bootstrap.cu', ...RING_ARGS },
      { type: 'phaseflip', request: 'launch', name: DEADLOCK_LAUNCH, program: '${workspaceFolder}/bugs/producer_missing_bootstrap.cu', ...RING_ARGS },
    ]);
    scratch.push(path.dirname(folder));
    server = await startCodeServer({ folder, stateDir });
    browser = await launchBrowser();
    page = browser.page;
    await openWorkbench(page, server.url);
    failed = false;
  });

  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail') return;
    failed = true;
    const errors = server ? extensionHostErrors(server.userDataDir) : [];
    if (errors.length > 0) console.log(`extension host errors:\n${errors.join('\n')}`);
    if (browser) await screenshot(page, `FAILED-${context.task.name.replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (failed) console.log(`kept for inspection (server logs under user-data/logs): ${scratch.join(', ')}`);
    else for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the timeline at a phase-flip stop, and a click in it travels back there', async () => {
    await openFile(page, 'good/producer_missing_bootstrap.cu');
    await addFunctionBreakpoint(page, 'slot_ready[2]');
    await runCommand(page, 'Debug: Select and Start Debugging');
    await pick(page, LAUNCH);
    const callStack = page.locator('.debug-call-stack');
    await callStack.locator('.monaco-list-row', { hasText: /slot_ready\[2\] completed phase 0/i }).first().waitFor({ timeout: 60_000 });
    // On to the second flip of slot_ready[2], so there is a past to travel to.
    await runCommand(page, 'Debug: Continue');
    await callStack.locator('.monaco-list-row', { hasText: /slot_ready\[2\] completed phase 1/i }).first().waitFor({ timeout: 60_000 });

    await runCommand(page, 'Phaseflip: Show Barrier Timeline');
    const frame = await timelineFrame(page);
    // The page asks for the model once it runs ('ready'): wait for the cursor in the status line.
    await frame.locator('#status', { hasText: /now at cycle \d+/ }).waitFor({ timeout: UI_TIMEOUT_MS });
    const status = (await frame.locator('#status').innerText()).trim();
    const now = Number(/now at cycle (\d+)/.exec(status)![1]);
    expect(status).toMatch(/6 barriers · 5 warps/);
    await screenshot(page, 'timeline-phase-flip-stop');

    // Click at slot_ready[0]'s first flip: the session travels back there.
    const target = await frame.evaluate(() => {
      const v = (window as unknown as TimelineWindow).phaseflipTimeline;
      const m = v.model();
      const row = m.barriers.find((b) => b.label === 'slot_ready[0]')!;
      const t = row.flips[0].time + 1;
      // A click lands on a whole pixel, which may be worth more than a cycle: aim two pixels past the flip.
      const cyclesPerPixel = 1 / (v.xOf(1) - v.xOf(0));
      const aim = t + Math.ceil(2 * cyclesPerPixel);
      return { t, x: v.xOf(aim), y: v.yOf(row.key) };
    });
    expect(target.t).toBeLessThan(now);
    await frame.locator('#timeline').click({ position: { x: target.x, y: target.y } });
    await callStack.locator('.monaco-list-row', { hasText: /travelled to cycle \d+/ }).first().waitFor({ timeout: 60_000 });
    await frame.locator('#status', { hasText: new RegExp(`now at cycle (?!${now}\\b)\\d+`) }).waitFor({ timeout: UI_TIMEOUT_MS });
    const after = Number(/now at cycle (\d+)/.exec(await frame.locator('#status').innerText())![1]);
    expect(after).toBeGreaterThanOrEqual(target.t);
    expect(after).toBeLessThan(now);
    await screenshot(page, 'timeline-after-travel');
    await runCommand(page, 'Debug: Stop');
    await callStack.locator('.monaco-list-row', { hasText: /travelled to cycle/i }).first().waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    await runCommand(page, 'Debug: Remove All Breakpoints');
  });

  it('at a deadlock every blocked warp says what it waits on, and the timeline marks the deadlock', async () => {
    await runCommand(page, 'Debug: Select and Start Debugging');
    await pick(page, DEADLOCK_LAUNCH);
    await page.locator('.exception-widget').first().waitFor({ timeout: 60_000 });
    const callStack = page.locator('.debug-call-stack');
    // Warp 0 carries the deadlock itself; warps 1-4 each their own wait (the Call Stack shows state labels in capitals).
    for (const warp of [1, 2, 3, 4]) {
      await callStack.locator('.monaco-list-row', { hasText: new RegExp(`warp ${warp}\\b[\\s\\S]*waits on slot_ready\\[0\\] \\(parity 0\\) at line \\d+ ← bar_wait line \\d+`, 'i') }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    }
    await runCommand(page, 'Phaseflip: Show Barrier Timeline');
    const frame = await timelineFrame(page);
    // The panel (still open from the last session) follows the new one.
    await frame.waitForFunction(() => (window as unknown as { phaseflipTimeline: { model(): { markers: { kind: string }[] } } }).phaseflipTimeline.model().markers.some((m) => m.kind === 'deadlock'), undefined, { timeout: UI_TIMEOUT_MS });
    const markers = await frame.evaluate(() => (window as unknown as { phaseflipTimeline: { model(): { markers: { kind: string }[] } } }).phaseflipTimeline.model().markers.map((m) => m.kind));
    expect(markers).toEqual(['deadlock']);
    await screenshot(page, 'timeline-deadlock');
    await runCommand(page, 'Debug: Stop');
  });
});
