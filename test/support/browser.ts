import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (infra/local/chromium.sh installs it). Playwright's
 * own browser download cannot work here, so the system executable is named. A missing browser is
 * a failure with the way to install it, never a skip.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: run \`bash infra/local/chromium.sh start\` (or set CHROMIUM_PATH)`);
  }
  // --no-sandbox: the test machines run as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's WCAG 2.1 A/AA and best-practice rules on the page as it is now; returns the serious
 * and critical violations. Injected through the DevTools protocol, so the page's CSP (no inline
 * script) stays as it is.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  // Browser-side code as text: this file is type-checked against Node, not the DOM.
  const violations = await page.evaluate<AxeViolation[]>(`(async () => {
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  })()`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Every axe-core violation (WCAG 2.1 A/AA and best practice), of any impact; `exclude` leaves out
 * containers of a renderer that is not ours (docs/web.md "Screenshots").
 */
export async function allAxeViolations(page: Page, exclude: string[] = []): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const context = exclude.length === 0 ? 'document' : JSON.stringify({ exclude: exclude.map((selector) => [selector]) });
  return page.evaluate<AxeViolation[]>(`(async () => {
    const result = await axe.run(${context}, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  })()`);
}

/** Where the browser tests write their screenshots (shown in the README and docs/web.md). */
export const SCREENSHOT_DIR = join(import.meta.dirname, '../../docs/screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, animations: 'disabled' });
}
