import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocsPage } from '../../services/api/docs-page.ts';
import { build } from '../integration/api/helper.ts';
import { launchChromium } from '../support/browser.ts';
import { DESKTOP, shootSizes } from '../support/portal.ts';

/**
 * The API docs page at /docs (docs/api-decisions.md "API docs page") in Debian's Chromium: Swagger
 * UI, served by the service itself, renders every operation of the service's own
 * /v2/openapi.json under the page's content security policy, with no request to another origin.
 */
describe('API docs page at /docs (Chromium)', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** The API with its docs page on a loopback port (closed when the test ends, by build()). */
  async function served(): Promise<string> {
    const { app } = await build({ withDeps: () => ({ docsPage: buildDocsPage() }) });
    return app.listen({ port: 0, host: '127.0.0.1' });
  }

  it('renders every operation of /v2/openapi.json, in the reader\'s language around it, with no CSP violation and nothing fetched elsewhere', async () => {
    const baseUrl = await served();
    const openapi = (await (await fetch(`${baseUrl}/v2/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(openapi.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations.length).toBeGreaterThan(15);

    for (const locale of ['da', 'en'] as const) {
      const context = await browser.newContext({ locale, viewport: DESKTOP, extraHTTPHeaders: { 'Accept-Language': locale } });
      const page = await context.newPage();
      const problems: string[] = [];
      const elsewhere: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`); });
      page.on('request', (r) => { if (!r.url().startsWith(baseUrl) && !r.url().startsWith('data:')) elsewhere.push(r.url()); });
      await page.goto(`${baseUrl}/docs`);
      // Swagger UI's own signal that the document was read: one block per operation.
      await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
      const shown = await page.locator('.opblock-summary').evaluateAll((blocks) => blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? b.querySelector('.opblock-summary-path')?.textContent?.trim() ?? '';
        return `${method} ${path.replace(/\u200b/g, '')}`;
      }));
      expect(shown.sort()).toEqual([...operations].sort());
      expect(await page.locator('h1').first().textContent()).toBe(locale === 'da' ? 'API-dokumentation' : 'API documentation');
      expect(await page.getAttribute('html', 'lang')).toBe(locale);
      expect(problems, 'console errors (a CSP violation shows here)').toEqual([]);
      expect(elsewhere).toEqual([]);
      // Desktop and 360 px, axe 0 on our own chrome; Swagger UI's container is left out of axe:
      // its own markup has violations we cannot fix (docs/web.md "Screenshots").
      await shootSizes(page, `docs-api-${locale}`, ['#swagger-ui']);
      await context.close();
    }
  }, 240_000);

  it('answers its files with the page headers; unknown files under /docs are 404', async () => {
    const baseUrl = await served();
    const response = await fetch(`${baseUrl}/docs`, { headers: { 'Accept-Language': 'en' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('vary')).toContain('Accept-Language');
    const bundle = await fetch(`${baseUrl}/docs/swagger-ui-bundle.js`);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const etag = bundle.headers.get('etag')!;
    expect((await fetch(`${baseUrl}/docs/swagger-ui-bundle.js`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect((await fetch(`${baseUrl}/docs/nothing.js`)).status).toBe(404);
  });
});
