import { describe, expect, it } from 'vitest';
import { buildWebPage } from '../../../services/api/web/assets.ts';
import { PAGE_SECURITY_HEADERS } from '../../../services/api/web/routes.ts';
import { build, errorOf } from './helper.ts';

/** The page's routes on buildApp (the browser flow itself: test/e2e/web-page.test.ts). */
describe('the web page routes', () => {
  const page = buildWebPage();

  it('serve / and /app files with the security headers and an ETag, HEAD included', async () => {
    const { app } = await build({ withDeps: () => ({ webPage: page }) });
    const index = await app.inject({ method: 'GET', url: '/' });
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) expect(index.headers[name.toLowerCase()], name).toBe(value);
    expect(index.body).toContain('<script type="module" src="/app/main.js"></script>');
    const head = await app.inject({ method: 'HEAD', url: '/app/main.js' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    const cached = await app.inject({ method: 'GET', url: '/app/main.js', headers: { 'if-none-match': head.headers.etag as string } });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
    const texts = await app.inject({ method: 'GET', url: '/app/texts.json' });
    expect(texts.json().messages.en.app_title).toBe('Robinson check');
  });

  it('leave the API as it was: unknown files are the API\'s 404, other methods 405, API answers without page headers', async () => {
    const { app } = await build({ withDeps: () => ({ webPage: page }) });
    const missing = await app.inject({ method: 'GET', url: '/app/missing.js', headers: { 'accept-language': 'en' } });
    expect(missing.statusCode).toBe(404);
    expect(errorOf(missing)).toMatchObject({ code: 'not_found', message: 'The resource was not found.' });
    const post = await app.inject({ method: 'POST', url: '/' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toContain('GET');
    const api = await app.inject({ method: 'GET', url: '/v2/list-versions/current' });
    expect(api.statusCode).toBe(401);
    expect(api.headers['content-security-policy']).toBeUndefined();
  });

  it('are absent without a page: / is the API\'s 404', async () => {
    const { app } = await build();
    expect((await app.inject({ method: 'GET', url: '/' })).statusCode).toBe(404);
  });
});
