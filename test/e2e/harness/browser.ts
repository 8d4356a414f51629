// Launches Debian Chromium through playwright-core (never a downloaded browser) with a fresh
// profile, and collects what the page logged so a failure can show it.
import { rmSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { freshStateDir } from './code-server';
import { e2eTools } from './paths';

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors seen so far. */
  consoleErrors: string[];
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1400, height: 900 }): Promise<Browser> {
  const tools = e2eTools();
  const profile = freshStateDir('phaseflip-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: tools.chromium,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
    timeout: 60_000,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(30_000);
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  const close = async () => {
    // close() can hang on a wedged renderer; the timeout keeps the suite's own timeouts in charge.
    await Promise.race([context.close().catch(() => undefined), new Promise((r) => setTimeout(r, 10_000))]);
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, consoleErrors, close };
}
