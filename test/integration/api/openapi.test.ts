import { describe, expect, it } from 'vitest';
import { routeSpecs } from '../../../services/api/routes/index.ts';
import { build } from './helper.ts';

type Json = Record<string, unknown>;

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

describe('GET /v2/openapi.json', () => {
  it('is public, valid JSON, OpenAPI 3.1, with every route and every schema', async () => {
    const { app } = await build();
    const response = await app.inject({ method: 'GET', url: '/v2/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const doc = JSON.parse(response.body) as Json & { paths: Record<string, Record<string, Json>>; components: { schemas: Json } };
    expect(doc.openapi).toBe('3.1.0');
    expect((doc.info as Json).version).toBe('2.0.0');

    for (const spec of routeSpecs) {
      const op = doc.paths[spec.url]?.[spec.method.toLowerCase()] as Json & { responses: Record<string, Json> };
      expect(op, `${spec.method} ${spec.url}`).toBeDefined();
      expect(op.operationId).toBe(spec.operationId);
      expect(Object.keys(op.responses).map(Number).sort()).toEqual([spec.success.status, ...spec.errors, 431].sort());
      // A path parameter can be unreadable (bad percent-encoding): 400 bad_request, documented.
      if (spec.pathParams) expect(spec.errors).toContain(400);
      if (spec.body) expect(op.requestBody).toBeDefined();
    }
    expect(doc.paths['/v2/openapi.json'].get.security).toEqual([]);
    expect(doc.paths['/v2/.well-known/jwks.json'].get.security).toEqual([]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/v2/.well-known/jwks.json', '/v2/addresses/resolve', '/v2/certificates/{token}', '/v2/check-jobs', '/v2/check-jobs/{id}',
      '/v2/check-jobs/{id}/certificate.pdf', '/v2/check-jobs/{id}/file', '/v2/check-jobs/{id}/preview', '/v2/check-jobs/{id}/results',
      '/v2/check-jobs/{id}/start', '/v2/checks',
      '/v2/company-checks', '/v2/list-versions/current', '/v2/monitors', '/v2/monitors/{id}', '/v2/monitors/{id}/contacts',
      '/v2/openapi.json', '/v2/payments/webhook', '/v2/phone-checks',
      // The portal's people (docs/people.md).
      '/v2/api-keys', '/v2/api-keys/{id}', '/v2/audit-log', '/v2/invitations/{token}', '/v2/session', '/v2/session/sign-out-everywhere', '/v2/session/recovery-codes',
      '/v2/settings', '/v2/users', '/v2/users/{id}', '/v2/users/{id}/role',
      // The inbound channels an admin sees in the page (docs/inbound.md "In the page").
      '/v2/email-senders', '/v2/email-senders/{address}', '/v2/drop-folders', '/v2/drop-folders/{id}', '/v2/connectors', '/v2/connectors/{id}',
      // Saved column mappings (docs/web.md "Saved column mappings").
      '/v2/column-mappings', '/v2/column-mappings/{id}',
    ].sort());
    // Signing in and opening an invitation need no key; everything else does.
    expect(doc.paths['/v2/session'].post.security).toEqual([]);
    expect(doc.paths['/v2/invitations/{token}'].get.security).toEqual([]);
    expect(doc.paths['/v2/session'].get.security).toBeUndefined();
    // Files (docs/decisions.md §14): the multipart body, /start with an optional body, /file as csv or xlsx.
    const create = doc.paths['/v2/check-jobs'].post as { requestBody: { content: Record<string, { schema: Json & { properties: Record<string, Json> } }> } };
    const form = create.requestBody.content['multipart/form-data'].schema;
    expect(Object.keys(form.properties).sort()).toEqual(['callback_url', 'column_mapping', 'external_ref', 'file', 'options']);
    expect(form.properties.file).toMatchObject({ type: 'string', contentMediaType: 'application/octet-stream' });
    expect(form.required).toEqual(['file']);
    const start = doc.paths['/v2/check-jobs/{id}/start'].post as { requestBody: Json & { content: Record<string, Json> } };
    expect(start.requestBody.required).toBe(false);
    expect(start.requestBody.content['application/json']).toBeDefined();
    const file = doc.paths['/v2/check-jobs/{id}/file'].get as { responses: Record<string, { content: Record<string, Json> }>; parameters: Json[] };
    expect(Object.keys(file.responses['200'].content).sort()).toEqual([
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/csv',
    ]);
    expect(file.parameters.map((p) => p.name)).toContain('format');
    const mapping = doc.components.schemas.ColumnMapping as { properties: Record<string, Json> };
    expect(mapping.properties.header_row).toMatchObject({ minimum: -1 });
    // Company and phone checks: the contract's limits and the 403 of the add-on.
    const companies = doc.components.schemas.CreateCompanyChecksRequest as { properties: { companies: Json } };
    expect(companies.properties.companies).toMatchObject({ minItems: 1, maxItems: 1000 });
    const phones = doc.components.schemas.CreatePhoneChecksRequest as { properties: { phones: Json } };
    expect(phones.properties.phones).toMatchObject({ minItems: 1, maxItems: 500 });
    for (const name of ['CompanyInput', 'CompanyCheckResult', 'PhoneInput', 'PhoneLookup']) expect(doc.components.schemas[name], name).toBeDefined();
    for (const path of ['/v2/company-checks', '/v2/phone-checks']) {
      expect(Object.keys((doc.paths[path] as { post: { responses: object } }).post.responses)).toContain('403');
    }

    for (const name of ['PersonInput', 'CheckResult', 'Match', 'ResolvedAddress', 'ListVersionRef', 'Error', 'CreateChecksRequest', 'CreateChecksResponse', 'ResolveAddressesRequest', 'ResolveAddressesResponse', 'MatchPolicy', 'Status', 'Reason']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    // Every reference resolves within the document.
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.split('/').pop()!], ref).toBeDefined();
    }
    // The generated schemas carry the contract's limits.
    const request = doc.components.schemas.CreateChecksRequest as { properties: { people: Json } };
    expect(request.properties.people).toMatchObject({ minItems: 1, maxItems: 1000 });
    const person = doc.components.schemas.PersonInput as { properties: Record<string, Json>; additionalProperties: boolean };
    expect(person.properties.name).toMatchObject({ type: 'string', maxLength: 200 });
    expect(person.additionalProperties).toBe(false);
    const result = doc.components.schemas.CheckResult as { properties: Record<string, Json> };
    expect(result.properties.level.deprecated).toBe(true);
  });
});
