// End-to-end scenarios of issue 6: the packaged .vsix installed into code-server (VS Code 1.139) and
// clicked through in headless Chromium, the way a user meets the extension. Each scenario saves a
// screenshot under test/e2e/artifacts/ (named for the README: finding, hover, phase-flip stop …).
// The scenarios share one workbench and run in order; each leaves it ready for the next.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, launchBrowser } from './harness/browser';
import { type CodeServer, extensionHostErrors, freshStateDir, installVsix, startCodeServer } from './harness/code-server';
import { artifactsDir, repoRoot } from './harness/paths';
import { activeEditor, addFunctionBreakpoint, goToLine, openFile, openWorkbench, pick, problemRows, runCommand, screenshot } from './harness/workbench';
import { scratchWorkspace } from './harness/workspace';

const BUGGY_CU = 'bugs/producer_missing_bootstrap.cu';
const BUGGY_CO = 'croqtile/bugs/missing_bootstrap.co';
const UI_TIMEOUT_MS = 30_000;

/** 1-based line and column of the first non-comment line of an example containing `needle`. */
function whereIs(relative: string, needle: string): { line: number; column: number } {
  const lines = readFileSync(path.join(repoRoot, 'examples', relative), 'utf8').split('\n');
  const index = lines.findIndex((l) => l.includes(needle) && !l.trimStart().startsWith('//'));
  if (index < 0) throw new Error(`'${needle}' not found in examples/${relative}`);
  return { line: index + 1, column: lines[index]!.indexOf(needle) + 1 };
}
// Where `phaseflip lint` reports PF201 (the producer's first wait) and a barrier instruction to hover.
const PF201_CU = whereIs(BUGGY_CU, 'bar_wait(&slot_free[stage], phase)');
const MBARRIER_INIT = whereIs(BUGGY_CU, 'mbarrier.init');
const PF201_CO = whereIs(BUGGY_CO, 'wait empty[stage]');

/** The three-slot ring kernel of the examples, launched on the simulator (see docs/simulator.md). */
function ringLaunch(name: string, relative: string) {
  return {
    type: 'phaseflip',
    request: 'launch',
    name,
    program: `\${workspaceFolder}/${relative}`,
    kernel: 'stream_sum',
    grid: 1,
    block: 160,
    args: ['in=f32[6144]:iota', 'out=f32[128]', 'num_tiles=6'],
  };
}
const PHASE_FLIP_LAUNCH = 'Phaseflip: ring (phase flips)';
const DEADLOCK_LAUNCH = 'Phaseflip: ring without bootstrap (deadlock)';

/** Packages the extension as users get it; the path of the .vsix. */
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

describe('Phaseflip in code-server, driven through Chromium', () => {
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  // Temporary directories: removed after a clean run, kept (with the server's logs) after a failure.
  const scratch: string[] = [];
  let failed = false;

  beforeAll(async () => {
    failed = true; // until the workbench is up: a failed setup keeps its directories too
    rmSync(artifactsDir, { recursive: true, force: true });
    mkdirSync(artifactsDir, { recursive: true });
    const stateDir = freshStateDir();
    scratch.push(stateDir);
    const vsix = packageVsix(stateDir);
    await installVsix(stateDir, vsix);
    const folder = scratchWorkspace([
      ringLaunch(PHASE_FLIP_LAUNCH, 'good/producer_missing_bootstrap.cu'),
      ringLaunch(DEADLOCK_LAUNCH, BUGGY_CU),
    ]);
    scratch.push(path.dirname(folder));
    server = await startCodeServer({ folder, stateDir });
    browser = await launchBrowser();
    page = browser.page;
    await openWorkbench(page, server.url);
    failed = false;
  });

  afterEach(async (context) => {
    // A failing scenario leaves a picture of what the user would have seen.
    if (context.task.result?.state !== 'fail') return;
    failed = true;
    const errors = server ? extensionHostErrors(server.userDataDir) : [];
    if (errors.length > 0) console.log(`extension host errors:\n${errors.join('\n')}`);
    if (browser) {
      await screenshot(page, `FAILED-${context.task.name.replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (failed) console.log(`kept for inspection (server logs under user-data/logs): ${scratch.join(', ')}`);
    else for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  it('a buggy .cu shows a squiggle and a PF201 entry in Problems', async () => {
    await openFile(page, BUGGY_CU);
    // The finding sits on the producer's first wait; only visible lines are rendered.
    await goToLine(page, PF201_CU.line, PF201_CU.column);
    await activeEditor(page).locator('.squiggly-error').first().waitFor({ timeout: UI_TIMEOUT_MS });
    const rows = await problemRows(page);
    const pf201 = rows.filter({ hasText: 'PF201' });
    await pf201.first().waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await pf201.count()).toBe(1);
    const text = await pf201.first().innerText();
    expect(text).toMatch(/Deadlock/);
    expect(text).toContain(`Ln ${PF201_CU.line}, Col ${PF201_CU.column}`);
    await screenshot(page, 'finding');
  });

  it('hovering a barrier instruction shows its documentation', async () => {
    // asm volatile("mbarrier.init.shared::cta.b64 …") inside bar_init.
    await goToLine(page, MBARRIER_INIT.line, MBARRIER_INIT.column + 3);
    await runCommand(page, 'Show or Focus Hover');
    const hover = page.locator('.monaco-hover', { hasText: 'Initialises an mbarrier' });
    await hover.first().waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await hover.first().innerText()).toMatch(/mbarrier\.init/);
    await screenshot(page, 'hover');
    await page.keyboard.press('Escape');
  });

  it('the quick fix starts the producer at phase 1 and the finding disappears', async () => {
    await goToLine(page, PF201_CU.line, PF201_CU.column);
    await runCommand(page, 'Quick Fix...');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Start `phase` at 1' });
    await fix.first().waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, 'quick-fix-menu');
    await fix.first().click();
    await activeEditor(page).locator('.view-line', { hasText: 'uint32_t phase = 1;' }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await activeEditor(page).locator('.squiggly-error').first().waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    const rows = await problemRows(page);
    await rows.filter({ hasText: 'PF201' }).first().waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    await screenshot(page, 'quick-fix-applied');
    // Leave the example as it was for the debug scenarios.
    await runCommand(page, 'File: Revert File');
  });

  it('a .co file is highlighted by the Croqtile grammar and gets PF201', async () => {
    await openFile(page, BUGGY_CO);
    await page.locator('.statusbar-item', { hasText: 'Croqtile' }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    // `wait empty[stage]; // expect: PF201`
    await goToLine(page, PF201_CO.line, PF201_CO.column);
    const line = activeEditor(page).locator('.view-line', { hasText: 'wait empty[stage]' }).first();
    const colours = await line.locator('span > span').evaluateAll((spans) =>
      spans.map((s) => ({ text: s.textContent ?? '', colour: s.ownerDocument.defaultView!.getComputedStyle(s).color })),
    );
    const colourOf = (text: string) => colours.find((c) => c.text.trim() === text)?.colour;
    expect(colourOf('wait'), `token spans: ${JSON.stringify(colours)}`).toBeDefined();
    // The keyword, the identifier and the comment each get their own theme colour.
    expect(colourOf('wait')).not.toBe(colourOf('empty'));
    expect(colours.find((c) => c.text.includes('expect: PF201'))?.colour).not.toBe(colourOf('empty'));
    await runCommand(page, 'Developer: Inspect Editor Tokens and Scopes');
    const inspect = page.locator('.token-inspect-widget');
    await inspect.waitFor({ timeout: UI_TIMEOUT_MS });
    // The TextMate grammar scopes the keyword (keyword.control.….croqtile inside source.croqtile).
    expect(await inspect.innerText()).toMatch(/keyword\.[\w.]*croqtile[\s\S]*source\.croqtile/);
    await screenshot(page, 'croqtile-highlighting');
    await page.keyboard.press('Escape');

    await activeEditor(page).locator('.squiggly-error').first().waitFor({ timeout: UI_TIMEOUT_MS });
    const rows = await problemRows(page);
    const pf201 = rows.filter({ hasText: 'PF201' }).filter({ hasText: `Ln ${PF201_CO.line}, Col ${PF201_CO.column}` });
    await pf201.first().waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, 'croqtile-finding');
  });

  it('a function breakpoint on slot_ready[1] stops at its phase flip and the Barriers scope shows it', async () => {
    await openFile(page, 'good/producer_missing_bootstrap.cu');
    await addFunctionBreakpoint(page, 'slot_ready[1]');

    await runCommand(page, 'Debug: Select and Start Debugging');
    await pick(page, PHASE_FLIP_LAUNCH);

    // The stopped thread's row carries the stop description ("slot_ready[1] completed phase 0 → 1 …").
    const callStack = page.locator('.debug-call-stack');
    const stoppedThread = callStack.locator('.monaco-list-row', { hasText: /slot_ready\[1\] completed phase 0/i });
    await stoppedThread.first().waitFor({ timeout: 60_000 });
    const variables = page.locator('.debug-variables');
    const scope = variables.locator('.monaco-list-row', { hasText: /^Barriers/ }).first();
    await scope.waitFor({ timeout: UI_TIMEOUT_MS });
    if ((await scope.getAttribute('aria-expanded')) !== 'true') await scope.click();
    const slot = variables.locator('.monaco-list-row', { hasText: 'slot_ready[1]' }).first();
    await slot.waitFor({ timeout: UI_TIMEOUT_MS });
    // slot_ready[s] expects one arrival: right after its first completion it is in phase 1, 1 of 1 pending.
    const value = await slot.innerText();
    expect(value).toMatch(/phase 1\b/);
    expect(value).toMatch(/pending 1\/1\b/);
    // Widen the side bar (focused: the Variables view) so the screenshot shows whole values.
    for (let i = 0; i < 4; i++) await runCommand(page, 'View: Increase Current View Size');
    await screenshot(page, 'phase-flip-stop');

    await runCommand(page, 'Debug: Stop');
    await stoppedThread.first().waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
    await runCommand(page, 'Debug: Remove All Breakpoints');
  });

  it('a deadlocking kernel stops with an exception naming the blocked warps', async () => {
    await runCommand(page, 'Debug: Select and Start Debugging');
    await pick(page, DEADLOCK_LAUNCH);

    const widget = page.locator('.exception-widget');
    await widget.first().waitFor({ timeout: 60_000 });
    const text = await widget.first().innerText();
    // The producer (warp 0) waits on slot_free[0]; the consumers (warps 1-4) on slot_ready[0].
    expect(text).toMatch(/deadlock/i);
    expect(text).toMatch(/warp 0\b[^;]*slot_free\[0\]/);
    for (const warp of [1, 2, 3, 4]) expect(text).toMatch(new RegExp(`warp ${warp}\\b[^;]*slot_ready\\[0\\]`));
    await page.locator('.debug-call-stack .monaco-list-row', { hasText: /deadlock/i }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await screenshot(page, 'deadlock-stop');
    await runCommand(page, 'Debug: Stop');
  });
});
