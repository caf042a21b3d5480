import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const OXLINT = join(ROOT, 'node_modules', 'oxlint', 'bin', 'oxlint');
const run = promisify(execFile);
const trees: string[] = [];

/**
 * Lints files laid out as in the repository, in a scratch tree that holds the project's own
 * .oxlintrc.json (its overrides are globs relative to it), and answers `file:line rule` per finding.
 */
async function findings(files: Record<string, string>, options: { typeAware?: boolean } = {}): Promise<string[]> {
  const tree = mkdtempSync(join(tmpdir(), 'lint-'));
  trees.push(tree);
  cpSync(join(ROOT, '.oxlintrc.json'), join(tree, '.oxlintrc.json'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, file)), { recursive: true });
    writeFileSync(join(tree, file), text);
  }
  const args = [OXLINT, '--format=unix', ...(options.typeAware ? ['--type-aware'] : []), ...Object.keys(files)];
  const output = await run(process.execPath, args, { cwd: tree }).then((r) => r.stdout, (error: { stdout?: string }) => error.stdout ?? '');
  return output.split('\n').flatMap((line) => {
    const m = /^(.+?):(\d+):\d+: .*\[\w+\/([\w-]+)\(([\w-]+)\)\]$/.exec(line);
    return m ? [`${m[1]}:${m[2]} ${m[4]}`] : [];
  }).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

describe('the project lint (.oxlintrc.json)', () => {
  it('keeps domain code to domain imports and libphonenumber-js/max, dynamic imports included', async () => {
    expect(await findings({
      'services/domain/check.ts': [
        "export { normalize } from './normalize.ts';",
        "export { parsePhoneNumber } from 'libphonenumber-js/max';",
        "export { readFileSync } from 'node:fs';",
        "export type { Logger } from '../platform/logger.ts';",
        "export const m = await import('pino');",
      ].join('\n'),
    })).toEqual(['services/domain/check.ts:3 no-restricted-imports', 'services/domain/check.ts:4 no-restricted-imports', 'services/domain/check.ts:5 no-restricted-imports']);
  });

  it('lets only the platform import the adapters, apart from the allowed imports of api/app.ts', async () => {
    const imports = [
      "export { createKafkaEventLog } from '../platform/log/kafka.ts';",
      "export { createClickHouseJobStore } from '../platform/store/clickhouse/jobs.ts';",
      "export { openEmbeddedDatabase } from '../platform/store/embedded/database.ts';",
      "export { createEmbeddedEventLog } from '../platform/log/embedded.ts';",
      "export type { JobStore } from '../platform/store/jobs-port.ts';",
    ].join('\n');
    expect(await findings({
      'services/projection/projection.ts': imports,
      'services/ingest/files/deep.ts': imports.replaceAll('../platform/', '../../platform/'),
      'services/platform/open-platform.ts': imports.replaceAll('../platform/', './'),
      'services/api/app.ts': imports,
    })).toEqual([
      'services/projection/projection.ts:1 no-restricted-imports', 'services/projection/projection.ts:2 no-restricted-imports',
      'services/projection/projection.ts:3 no-restricted-imports', 'services/projection/projection.ts:4 no-restricted-imports',
      'services/ingest/files/deep.ts:1 no-restricted-imports', 'services/ingest/files/deep.ts:2 no-restricted-imports',
      'services/ingest/files/deep.ts:3 no-restricted-imports', 'services/ingest/files/deep.ts:4 no-restricted-imports',
      'services/api/app.ts:1 no-restricted-imports', 'services/api/app.ts:2 no-restricted-imports', 'services/api/app.ts:4 no-restricted-imports',
    ].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })));
  });

  it('lets ingest reach monitors only through their contacts entry point', async () => {
    expect(await findings({
      'services/ingest/inbound/feed.ts': [
        "export { replaceMonitorContacts } from '../monitors/contacts.ts';",
        "export { createMonitorService } from '../monitors/service.ts';",
        "export type { MonitorStore } from '../../platform/store/monitors-port.ts';",
      ].join('\n'),
      // The monitors (a source of jobs, inside ingest) use their own modules and ingest's job machinery.
      'services/ingest/monitors/service.ts': [
        "export { replaceMonitorContacts } from './contacts.ts';",
        "export { createMonitorRunResults } from './run-results.ts';",
        "export { endUnfinishedJob } from '../jobs/end-job.ts';",
      ].join('\n'),
      'services/api/app.ts': "export { createMonitorService } from '../ingest/monitors/service.ts';",
    })).toEqual(['services/ingest/inbound/feed.ts:2 no-restricted-imports']);
  });

  it('keeps api and ingest from importing the projection: what they share with it is in the platform', async () => {
    expect(await findings({
      'services/api/routes/channels.ts': [
        "export { checkCallbackUrl } from '../../platform/outbound-http/index.ts';",
        "export { checkCallbackUrl as guard } from '../../projection/callbacks/url-guard.ts';",
        "export { createCallbackSender } from '../../projection/callbacks/index.ts';",
      ].join('\n'),
      'services/api/app.ts': [
        "export { openEmbeddedDatabase } from '../platform/store/embedded/database.ts';",
        "export { startProjection } from '../projection/index.ts';",
      ].join('\n'),
      'services/ingest/connector/https-get.ts': [
        "export { pinnedRequest } from '../../platform/outbound-http/index.ts';",
        "export { verifyCallbackSignature } from '../../platform/webhook-signature.ts';",
        "export { pinnedRequest as pinned } from '../../projection/callbacks/pinned-request.ts';",
        "export const m = await import('../../projection/projection.ts');",
      ].join('\n'),
      // The web page, payments and portal people are the HTTP edge too, and the monitors a source.
      'services/api/web/routes.ts': "export { startProjection } from '../../projection/index.ts';",
      'services/ingest/monitors/service.ts': "export { startProjection } from '../../projection/index.ts';",
      // The composition root and the projection itself may.
      'services/processes.ts': "export { startProjection } from './projection/index.ts';",
      'services/projection/callbacks/sender.ts': "export { checkCallbackUrl } from '../../platform/outbound-http/index.ts';",
    })).toEqual([
      'services/api/app.ts:2 no-restricted-imports',
      'services/api/routes/channels.ts:2 no-restricted-imports', 'services/api/routes/channels.ts:3 no-restricted-imports',
      'services/api/web/routes.ts:1 no-restricted-imports',
      'services/ingest/connector/https-get.ts:3 no-restricted-imports', 'services/ingest/connector/https-get.ts:4 no-restricted-imports',
      'services/ingest/monitors/service.ts:1 no-restricted-imports',
    ]);
  });

  it('finds console and process.env in library code, but not in the entry points or config.ts', async () => {
    const text = "console.log('x');\nexport const port = process.env.PORT;\n";
    expect(await findings({
      'services/domain/check.ts': text,
      'services/main.ts': text,
      'services/platform/config.ts': 'export const e = process.env;\n',
    })).toEqual(['services/domain/check.ts:1 no-console', 'services/domain/check.ts:2 no-process-env']);
  });

  it('finds focused and skipped tests', async () => {
    // Built from parts so that this file does not trip the rules itself.
    const dot = (name: string, modifier: string) => `${name}.${modifier}`;
    const text = [
      "import { describe, it } from 'vitest';",
      `${dot('it', 'only')}('a', () => {});`,
      `${dot('describe', 'skip')}('b', () => {});`,
      `${dot('it', 'skipIf')}(true)('c', () => {});`,
      "it('d', () => {});",
    ].join('\n');
    expect(await findings({ 'test/unit/x.test.ts': text })).toEqual([
      'test/unit/x.test.ts:2 no-focused-tests', 'test/unit/x.test.ts:3 no-disabled-tests', 'test/unit/x.test.ts:4 no-restricted-properties',
    ]);
  });

  it('runs the type-aware rules: a promise nobody awaits, awaiting a non-promise', async () => {
    expect(await findings({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', target: 'es2024', lib: ['es2024'], types: [] }, include: ['services'] }),
      'services/jobs.ts': 'async function save(): Promise<void> {}\nexport function run(): void {\n  save();\n}\nexport async function twice(): Promise<number> {\n  const n = await 2;\n  return n * 2;\n}\n',
    }, { typeAware: true })).toEqual(['services/jobs.ts:3 no-floating-promises', 'services/jobs.ts:6 await-thenable', 'services/jobs.ts:6 no-unnecessary-await']);
  });
});
