import fastify from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createErrorHandler } from '../../../services/api/error-handler.ts';
import { useStrictJsonBodies } from '../../../services/api/json-body.ts';
import { silentLogger } from '../../../services/platform/logger.ts';

/**
 * The JSON body parser (services/api/json-body.ts, docs/api-decisions.md "Unicode"): what it takes
 * and what it refuses, on the plain path (no `\u` escape, neither "__proto__" nor "constructor"
 * in the text: JSON.parse alone) and on fastify's guarded parser for everything else.
 */
async function echo() {
  const app = fastify({ logger: false });
  app.setErrorHandler(createErrorHandler(silentLogger()));
  useStrictJsonBodies(app);
  app.post('/echo', async (request) => ({ body: request.body ?? 'nothing' }));
  onTestFinished(() => app.close());
  return async (payload: string | Buffer) => {
    const response = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });
    return { status: response.statusCode, body: response.json<{ body?: unknown; error?: { details?: { reason?: string } } }>() };
  };
}

describe('JSON bodies', () => {
  it('takes JSON as JSON.parse reads it, on either path', async () => {
    const send = await echo();
    for (const text of ['{"people":[{"name":"Søren Kjær","id":"1"}]}', '{"name":"S\\u00f8ren \\ud83d\\ude00"}', '[1,2,{"a":null}]', '"text"', '{"note":"a \\\\u word"}', '{"constructorName":"x"}']) {
      const answer = await send(text);
      expect(answer.status, text).toBe(200);
      expect(answer.body.body).toEqual(JSON.parse(text));
    }
  });

  it('refuses prototype keys, spelt plainly or with escapes, and lone surrogates, with 400', async () => {
    const send = await echo();
    for (const text of ['{"__proto__":{"admin":true}}', '{"a":{"\\u005f_proto__":{"admin":true}}}', '{"constructor":{"prototype":{"admin":true}}}', '{"c\\u006fnstructor":{"prototype":{}}}']) {
      expect((await send(text)).status, text).toBe(400);
    }
    const lone = await send('{"name":"Karen \\ud800 Jensen"}');
    expect(lone.status).toBe(400);
    expect(lone.body.error?.details?.reason).toBe('invalid_json');
    const loneKey = await send('{"\\udc00":"x"}');
    expect(loneKey.body.error?.details?.reason).toBe('invalid_json');
  });

  it('refuses text that is not JSON, an empty body and bytes that are not UTF-8, with 400', async () => {
    const send = await echo();
    for (const text of ['{"people":', '', 'nope', '{"a":1}x']) expect((await send(text)).status, text).toBe(400);
    const bytes = await send(Buffer.from('{"name":"S\xf8ren"}', 'latin1'));
    expect(bytes.status).toBe(400);
    expect(bytes.body.error?.details?.reason).toBe('invalid_utf8');
  });
});
