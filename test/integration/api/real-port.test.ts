import { describe, expect, it } from 'vitest';
import { build } from './helper.ts';

describe('over a real port', () => {
  it('serves POST /v2/checks and errors on a loopback port chosen by the OS', async () => {
    const { app, orgA } = await build();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const ok = await fetch(`${address}/v2/checks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${orgA.testKey}`, 'content-type': 'application/json', 'idempotency-key': 'port-1' },
      body: JSON.stringify({ people: [{ id: 'x', name: 'Anne Robinson', address: 'Vestergade 1, 8000 Aarhus C' }] }),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('request-id')).toBeTruthy();
    const body = (await ok.json()) as { results: Array<{ id: string; status: string }> };
    expect(body.results).toEqual([expect.objectContaining({ id: 'x', status: 'blocked' })]);

    const bad = await fetch(`${address}/v2/checks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${orgA.testKey}`, 'content-type': 'application/json', 'accept-language': 'en' },
      body: '{not json',
    });
    expect(bad.status).toBe(400);
    const error = (await bad.json()) as { error: { code: string; request_id: string } };
    expect(error.error.code).toBe('invalid_request');
    expect(error.error.request_id).toBe(bad.headers.get('request-id'));
  });
});
