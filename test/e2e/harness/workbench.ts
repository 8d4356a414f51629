// Drives the VS Code workbench in the browser the way a user does: command palette, quick open,
// Go to Line, views. Selectors are the workbench's stable classes and aria labels, never pixels.
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { artifactsDir } from './paths';

export const isMac = process.platform === 'darwin';
const mod = isMac ? 'Meta' : 'Control';

export async function openWorkbench(page: Page, url: string, timeoutMs = 60_000): Promise<void> {
  await page.goto(url, { timeout: timeoutMs });
  await page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs });
  // The explorer lists the folder once the remote file system answers.
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: timeoutMs });
}

async function quickInput(page: Page, timeoutMs?: number): Promise<Locator> {
  const widget = page.locator('.quick-input-widget');
  await widget.waitFor({ state: 'visible', timeout: timeoutMs });
  return widget;
}

/**
 * Accepts the quick-input row that matches `labels` best: the first row containing `labels[0]`,
 * else the first row whose text starts with one of the others.
 */
async function acceptRow(page: Page, labels: string[], timeoutMs: number): Promise<void> {
  const widget = await quickInput(page);
  const rows = widget.locator('.monaco-list-row');
  const choose = (texts: string[]) => {
    const exact = texts.findIndex((t) => t.includes(labels[0]!));
    return exact >= 0 ? exact : texts.findIndex((t) => labels.slice(1).some((l) => t.trimStart().startsWith(l)));
  };
  const deadline = Date.now() + timeoutMs;
  let texts: string[] = [];
  let index = -1;
  // The list filters as it gets the typed text; give it a moment to settle on the best rows.
  for (;;) {
    await page.waitForTimeout(150);
    texts = await rows.allTextContents();
    index = choose(texts);
    if (index >= 0 || Date.now() > deadline) break;
  }
  if (index < 0) {
    await page.keyboard.press('Escape');
    throw new Error(`no row matching ${labels.map((l) => `'${l}'`).join(' or ')}; offered: ${texts.map((t) => t.replace(/\s+/g, ' ')).join(' | ') || '(none)'}`);
  }
  const typed = await widget.locator('input').inputValue();
  await rows.nth(index).click();
  // Accepted: the widget closes, or the command reuses it for its own pick (new text, new rows).
  while ((await widget.isVisible()) && (await widget.locator('input').inputValue().catch(() => '')) === typed) {
    if (Date.now() > deadline) throw new Error(`the quick input did not accept '${labels[0]}' within ${timeoutMs} ms`);
    await page.waitForTimeout(100);
  }
}

/**
 * Runs a command from the palette by its title ("Debug: Add Function Breakpoint"). The palette may
 * show a command without its category when the typed text matches an alias, so both are accepted.
 */
export async function runCommand(page: Page, title: string, timeoutMs = 15_000): Promise<void> {
  // The palette can open while the workbench is briefly inert (a dialog or a view taking focus closes
  // it again): open it afresh, a few times, before giving up.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    try {
      const widget = await quickInput(page, 5_000);
      await widget.locator('input').fill(`>${title}`, { timeout: 5_000 });
      break;
    } catch (e) {
      if (attempt >= 3) throw e;
      await page.waitForTimeout(500);
    }
  }
  const colon = title.indexOf(': ');
  await acceptRow(page, colon > 0 ? [title, title.slice(colon + 2)] : [title], timeoutMs);
}

/** Picks an entry of a quick pick that a command opened (a launch configuration, say). */
export async function pick(page: Page, label: string, timeoutMs = 15_000): Promise<void> {
  await acceptRow(page, [label], timeoutMs);
}

/** Opens a workspace file through Quick Open and waits for its editor tab. */
export async function openFile(page: Page, relative: string, timeoutMs = 15_000): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press(`${mod}+P`);
  const widget = await quickInput(page);
  await widget.locator('input').fill(relative);
  await acceptRow(page, [path.basename(relative)], timeoutMs);
  await page.locator(`.tab.active[data-resource-name="${path.basename(relative)}"]`).waitFor({ timeout: timeoutMs });
  await activeEditor(page).locator('.view-lines').waitFor({ timeout: timeoutMs });
}

export function activeEditor(page: Page): Locator {
  return page.locator('.editor-group-container.active .monaco-editor').first();
}

/** Moves the cursor with Go to Line (1-based line and column, as the status bar shows them). */
export async function goToLine(page: Page, line: number, column: number): Promise<void> {
  await activeEditor(page).locator('.view-lines').click();
  await page.keyboard.press(`${mod}+G`);
  const widget = await quickInput(page);
  await widget.locator('input').fill(`:${line}:${column}`);
  await page.keyboard.press('Enter');
  await widget.waitFor({ state: 'hidden' });
  await page.locator('.statusbar-item', { hasText: `Ln ${line}, Col ${column}` }).first().waitFor();
}

/** Rows of the Problems view (opening it if needed). */
export async function problemRows(page: Page): Promise<Locator> {
  await runCommand(page, 'Problems: Focus on Problems View');
  const view = page.locator('.markers-panel');
  await view.waitFor();
  return view.locator('.monaco-list-row');
}

/**
 * Adds a function breakpoint through the Breakpoints view, as a user does: Run and Debug shown,
 * "Debug: Add Function Breakpoint", the name typed into the inline box. In a freshly opened
 * workbench the Run and Debug view can still be laying out its sections when the command runs, and
 * the inline box is then never shown; the command is run again (a few times) until it is.
 */
export async function addFunctionBreakpoint(page: Page, name: string, timeoutMs = 30_000): Promise<void> {
  const input = page.locator('.debug-breakpoints .monaco-inputbox input');
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    await runCommand(page, 'View: Show Run and Debug');
    await runCommand(page, 'Debug: Add Function Breakpoint');
    try {
      await input.waitFor({ timeout: Math.min(8_000, Math.max(1_000, deadline - Date.now())) });
      break;
    } catch (e) {
      if (attempt >= 4 || Date.now() > deadline) throw e;
    }
  }
  await input.fill(name);
  await input.press('Enter');
  await page.locator('.debug-breakpoints .monaco-list-row', { hasText: name }).first().waitFor({ timeout: timeoutMs });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(artifactsDir, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}
