/**
 * The organisation's inbound channels for its admin (docs/inbound.md "In the page"): the e-mail
 * senders allowed to send files to the ingest mailbox (list, add, remove) and the SFTP drop
 * folders (list with the pinned host key and the last poll's outcome, remove), the connectors
 * (list with where they pull from and the last pull, add, remove). A signed-in admin
 * only (requireAdmin): an API key or a member gets 403. A drop folder is added only after one
 * connection showed the pasted host key, took the login and has inbox/ (docs/inbound.md "In the page").
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { DropFolder, DropFolderStatus, InboundStore } from '../../platform/store/inbound-port.ts';
import type { Connector, ConnectorStatus, ConnectorStore } from '../../platform/store/connectors-port.ts';
import type { RemovableRecord } from '../../platform/store/removable-records.ts';
import type { SecretBox } from '../../ingest/inbound/secrets.ts';
import type { CheckDropFolder } from '../../ingest/sftp/check-folder.ts';
import { CallbackUrlError, checkCallbackUrl, type LookupAll } from '../../platform/outbound-http/index.ts';
import { authOf, requireAdmin } from '../auth.ts';
import { channelIssue } from '../channel-issues.ts';
import { randomUUID } from 'node:crypto';
import { hostKeyOfPublicKeyLine } from './channel-inputs.ts';
import { channelAddingOff, notFound, validationFailed } from '../errors.ts';
import {
  AddConnectorRequestSchema, AddDropFolderRequestSchema, AddEmailSenderRequestSchema, ConnectorListSchema, ConnectorSchema, DropFolderListSchema, DropFolderSchema, EmailSenderListSchema, EmailSenderSchema,
} from '../schemas/channels.ts';
import { registerRoute } from './register.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';

export interface ChannelsContext {
  inbound: InboundStore;
  /** Absent: no connector routes. */
  connectors?: ConnectorStore;
  now?: () => Date;
  /** Adding folders and connectors in the page; absent (no INBOUND_SECRET_KEY to seal their credentials): 403 channel_adding_off. */
  adding?: ChannelAdding;
}

export interface ChannelAdding {
  secrets: SecretBox;
  checkDropFolder: CheckDropFolder;
  /** CALLBACK_ALLOW_HOSTS: hosts exempt from the address rules (test servers on loopback). */
  allowHosts: readonly string[];
  /** CONNECTOR_MIN_INTERVAL_SECONDS. */
  minIntervalSeconds: number;
  lookup?: LookupAll;
}

const spec = (s: Omit<RouteSpec, 'errors'> & { errors?: number[] }): RouteSpec => ({ errors: [400, 401, 402, 403, 404, 422, 500], ...s });

export const listSendersSpec = spec({
  method: 'GET', url: '/v2/email-senders', operationId: 'listEmailSenders', authenticated: true,
  summary: 'Senders allowed to e-mail files to the ingest mailbox (admin)',
  success: { status: 200, description: 'Senders, oldest first', schema: EmailSenderListSchema },
});
export const addSenderSpec = spec({
  method: 'POST', url: '/v2/email-senders', operationId: 'addEmailSender', authenticated: true,
  summary: 'Allows a sender (admin); an address another organisation allows is 422',
  body: AddEmailSenderRequestSchema,
  success: { status: 201, description: 'The sender', schema: EmailSenderSchema },
});
export const removeSenderSpec = spec({
  method: 'DELETE', url: '/v2/email-senders/{address}', operationId: 'removeEmailSender', authenticated: true,
  summary: 'Stops allowing a sender (admin)',
  pathParams: { address: { description: 'The sender address', schema: z.string().max(200) } },
  success: { status: 200, description: 'Removed', schema: z.strictObject({ address: z.string(), removed: z.literal(true) }) },
});
export const listDropFoldersSpec = spec({
  method: 'GET', url: '/v2/drop-folders', operationId: 'listDropFolders', authenticated: true,
  summary: "The organisation's SFTP drop folders with their pinned host key and last poll (admin)",
  success: { status: 200, description: 'Drop folders, oldest first', schema: DropFolderListSchema },
});
export const removeDropFolderSpec = spec({
  method: 'DELETE', url: '/v2/drop-folders/{id}', operationId: 'removeDropFolder', authenticated: true,
  summary: 'Stops polling a drop folder (admin)',
  pathParams: { id: { description: 'The drop folder id', schema: z.uuid() } },
  success: { status: 200, description: 'Removed', schema: z.strictObject({ id: z.uuid(), removed: z.literal(true) }) },
});

export const addDropFolderSpec = spec({
  method: 'POST', url: '/v2/drop-folders', operationId: 'addDropFolder', authenticated: true,
  summary: 'Adds an SFTP drop folder after one connection checked its host key, login and inbox/ (admin)',
  body: AddDropFolderRequestSchema,
  success: { status: 201, description: 'The drop folder', schema: DropFolderSchema },
});
export const addConnectorSpec = spec({
  method: 'POST', url: '/v2/connectors', operationId: 'addConnector', authenticated: true,
  summary: 'Adds a connector: a scheduled HTTPS pull, each file a check job (admin)',
  body: AddConnectorRequestSchema,
  success: { status: 201, description: 'The connector', schema: ConnectorSchema },
});

export const listConnectorsSpec = spec({
  method: 'GET', url: '/v2/connectors', operationId: 'listConnectors', authenticated: true,
  summary: "The organisation's connectors (scheduled HTTPS pulls) with their last pull (admin)",
  success: { status: 200, description: 'Connectors, oldest first', schema: ConnectorListSchema },
});
export const removeConnectorSpec = spec({
  method: 'DELETE', url: '/v2/connectors/{id}', operationId: 'removeConnector', authenticated: true,
  summary: 'Stops a connector (admin)',
  pathParams: { id: { description: 'The connector id', schema: z.uuid() } },
  success: { status: 200, description: 'Removed', schema: z.strictObject({ id: z.uuid(), removed: z.literal(true) }) },
});

export const channelSpecs: RouteSpec[] = [
  listSendersSpec, addSenderSpec, removeSenderSpec, listDropFoldersSpec, addDropFolderSpec, removeDropFolderSpec, listConnectorsSpec, addConnectorSpec, removeConnectorSpec,
];

/** A connector's address without its query string or credentials (either may hold a secret). */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '';
  }
}

/** A folder as the admin sees it: the last error's text stays with the operator (it may name paths of the customer's server). */
function folderJson(f: DropFolder, status: DropFolderStatus | null) {
  return DropFolderSchema.parse({
    id: f.id, host: f.host, port: f.port, username: f.username, host_key_sha256: f.host_key_sha256, auth: f.auth, path: f.path,
    locale: f.locale, mapping: f.column_mapping ? 'saved' : 'guessed', monitor_id: f.monitor_id ?? null, created_at: f.created_at,
    last_ok_at: status?.last_ok_at ?? null, last_error_at: status?.last_error_at ?? null, failures: status?.failures ?? 0,
  });
}

function connectorJson(c: Connector, status: ConnectorStatus | null) {
  return ConnectorSchema.parse({
    id: c.id, url: shownUrl(c.url), auth_header_name: c.auth_header_name, interval_seconds: c.interval_seconds,
    target: c.target.kind, monitor_id: c.target.kind === 'monitor' ? c.target.monitor_id : null,
    mapping: c.column_mapping ? 'saved' : 'guessed', created_at: c.created_at,
    last_ok_at: status?.last_ok_at ?? null, last_error_at: status?.last_error_at ?? null, failures: status?.failures ?? 0,
  });
}

export function registerChannelRoutes(app: FastifyInstance, ctx: RouteContext, channels: ChannelsContext): void {
  const { inbound } = channels;
  const now = channels.now ?? (() => new Date());
  const senderJson = (s: { address: string; locale: 'da' | 'en' | null; created_at: string }) => ({ address: s.address, locale: s.locale, created_at: s.created_at });

  registerRoute(app, listSendersSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const senders = await inbound.listSenders(authOf(request).org.id);
    return reply.code(200).send({ data: senders.map(senderJson) });
  });

  registerRoute(app, addSenderSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const body = request.body as z.infer<typeof AddEmailSenderRequestSchema>;
    const orgId = authOf(request).org.id;
    const address = body.address.toLowerCase();
    // The mailbox routes a message by its sender to one organisation (the first that allowed
    // it): another organisation's address must not be taken over.
    const existing = await inbound.findSender(address);
    if (existing && existing.org_id !== orgId) {
      throw validationFailed([channelIssue('address', 'address_taken')]);
    }
    const sender = { org_id: orgId, address, locale: body.locale, created_at: existing?.created_at ?? now().toISOString() };
    await inbound.addSender(sender);
    return reply.code(201).send(senderJson(sender));
  });

  registerRoute(app, removeSenderSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const address = (request.params as { address: string }).address.toLowerCase();
    if (!(await inbound.removeSender(authOf(request).org.id, address))) throw notFound();
    return reply.code(200).send({ address, removed: true });
  });

  registerRoute(app, listDropFoldersSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const folders = await inbound.listDropFolders(authOf(request).org.id);
    const data = await Promise.all(folders.map(async (f) => folderJson(f, await inbound.getFolderStatus(f.id))));
    return reply.code(200).send({ data });
  });

  const adding = channels.adding;
  if (adding) registerAddDropFolder(app, ctx, inbound, adding, now);
  else registerAddingOff(app, ctx, addDropFolderSpec);

  registerRoute(app, removeDropFolderSpec, [ctx.authenticate], async (request, reply) =>
    reply.code(200).send(await removeOwn(request, (id) => inbound.getDropFolder(id), (id) => inbound.removeDropFolder(id, now().toISOString()))));

  const connectors = channels.connectors;
  if (!connectors) return;

  registerRoute(app, listConnectorsSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const list = await connectors.listConnectors(authOf(request).org.id);
    const data = await Promise.all(list.map(async (c) => connectorJson(c, await connectors.getStatus(c.id))));
    return reply.code(200).send({ data });
  });

  if (adding) registerAddConnector(app, ctx, connectors, adding, now);
  else registerAddingOff(app, ctx, addConnectorSpec);

  registerRoute(app, removeConnectorSpec, [ctx.authenticate], async (request, reply) =>
    reply.code(200).send(await removeOwn(request, (id) => connectors.getConnector(id), (id) => connectors.removeConnector(id, now().toISOString()))));
}

/**
 * DELETE of a drop folder or a connector (removable-records.ts in the store): admins only; an id
 * that is no UUID, another organisation's or already removed is 404, as if it never existed.
 */
async function removeOwn(
  request: FastifyRequest,
  get: (id: string) => Promise<RemovableRecord | null>,
  remove: (id: string) => Promise<boolean>,
): Promise<{ id: string; removed: true }> {
  requireAdmin(request);
  const id = (request.params as { id: string }).id;
  if (!z.uuid().safeParse(id).success) throw notFound();
  const record = await get(id);
  if (!record || record.org_id !== authOf(request).org.id || record.removed_at !== null) throw notFound();
  await remove(id);
  return { id, removed: true };
}

/** The route exists (it is in the OpenAPI document) but this installation cannot seal credentials. */
function registerAddingOff(app: FastifyInstance, ctx: RouteContext, routeSpec: RouteSpec): void {
  registerRoute(app, routeSpec, [ctx.authenticate], async (request) => {
    requireAdmin(request);
    throw channelAddingOff();
  });
}

/** The host by the same address rules as a callback or a connector: no internal or private network (docs/inbound.md). */
async function checkHost(host: string, adding: ChannelAdding): Promise<void> {
  if (!/^[A-Za-z0-9.-]+$/.test(host) && !/^[0-9A-Fa-f:]+$/.test(host)) throw validationFailed([channelIssue('host', 'host_invalid')]);
  try {
    await checkCallbackUrl(`https://${host.includes(':') ? `[${host}]` : host}/`, { allowHosts: adding.allowHosts, ...(adding.lookup ? { lookup: adding.lookup } : {}) });
  } catch (error) {
    if (!(error instanceof CallbackUrlError)) throw error;
    const key = error.reason === 'unresolvable' ? 'host_unresolvable' : error.reason === 'blocked_address' ? 'host_refused' : 'host_invalid';
    throw validationFailed([channelIssue('host', key)]);
  }
}

const CHECK_ISSUES = {
  host_key_mismatch: channelIssue('host_public_key', 'host_key_mismatch'),
  cannot_log_in: channelIssue('username', 'cannot_log_in'),
  no_inbox: channelIssue('path', 'no_inbox'),
} as const;

function registerAddDropFolder(app: FastifyInstance, ctx: RouteContext, inbound: InboundStore, adding: ChannelAdding, now: () => Date): void {
  registerRoute(app, addDropFolderSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const body = request.body as z.infer<typeof AddDropFolderRequestSchema>;
    const hostKey = hostKeyOfPublicKeyLine(body.host_public_key);
    if (hostKey === null) throw validationFailed([channelIssue('host_public_key', 'not_a_public_key')]);
    if ((body.password === undefined) === (body.private_key === undefined)) throw validationFailed([channelIssue('password', 'one_login')]);
    if (body.private_key !== undefined && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(body.private_key)) {
      throw validationFailed([channelIssue('private_key', 'not_a_private_key')]);
    }
    if (!body.path.startsWith('/') || body.path.includes('\0') || body.path.split('/').includes('..')) throw validationFailed([channelIssue('path', 'absolute_path')]);
    await checkHost(body.host, adding);
    const auth = body.private_key !== undefined ? 'key' as const : 'password' as const;
    const secret = (body.private_key ?? body.password) as string;
    const where = { host: body.host, port: body.port, username: body.username, auth, host_key_sha256: hostKey, path: body.path };
    // One connection as the poller will make it: a wrong key or login is said now, nothing stored.
    const outcome = await adding.checkDropFolder(where, secret);
    if (outcome !== 'ok') throw validationFailed([CHECK_ISSUES[outcome]]);
    const id = randomUUID();
    const folder: DropFolder = {
      id, org_id: authOf(request).org.id, ...where, secret_sealed: adding.secrets.seal(secret, id),
      column_mapping: null, options: {}, locale: body.locale, monitor_id: null, created_at: now().toISOString(), removed_at: null,
    };
    await inbound.createDropFolder(folder);
    return reply.code(201).send(folderJson(folder, null));
  });
}

function registerAddConnector(app: FastifyInstance, ctx: RouteContext, connectors: ConnectorStore, adding: ChannelAdding, now: () => Date): void {
  registerRoute(app, addConnectorSpec, [ctx.authenticate], async (request, reply) => {
    requireAdmin(request);
    const body = request.body as z.infer<typeof AddConnectorRequestSchema>;
    const minMinutes = Math.ceil(adding.minIntervalSeconds / 60);
    if (body.interval_minutes < minMinutes) throw validationFailed([channelIssue('interval_minutes', 'interval_range', { min: String(minMinutes) })]);
    const name = body.auth_header_name?.trim() || undefined;
    const value = body.auth_header_value?.trim() || undefined;
    if ((name === undefined) !== (value === undefined)) throw validationFailed([channelIssue('auth_header_value', 'header_pair')]);
    if (name !== undefined && !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw validationFailed([channelIssue('auth_header_name', 'header_name')]);
    // One header line only: a CR or LF in the value would smuggle in another header.
    if (value !== undefined && /[\r\n\0]/.test(value)) throw validationFailed([channelIssue('auth_header_value', 'header_value')]);
    let url: string;
    try {
      url = (await checkCallbackUrl(body.url.trim(), { allowHosts: adding.allowHosts, ...(adding.lookup ? { lookup: adding.lookup } : {}) })).url.toString();
    } catch (error) {
      if (!(error instanceof CallbackUrlError)) throw error;
      const key = error.reason === 'credentials_in_url' ? 'url_credentials' : error.reason === 'blocked_address' ? 'url_refused'
        : error.reason === 'unresolvable' ? 'host_unresolvable' : 'url_invalid';
      throw validationFailed([channelIssue('url', key)]);
    }
    const id = randomUUID();
    const connector: Connector = {
      id, org_id: authOf(request).org.id, url, interval_seconds: body.interval_minutes * 60, target: { kind: 'job' },
      auth_header_name: name ?? null, auth_header_sealed: value !== undefined ? adding.secrets.seal(value, id) : null,
      column_mapping: null, options: {}, locale: body.locale, created_at: now().toISOString(), removed_at: null,
    };
    await connectors.createConnector(connector);
    return reply.code(201).send(connectorJson(connector, null));
  });
}
