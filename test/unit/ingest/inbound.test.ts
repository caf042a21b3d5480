import { describe, expect, it } from 'vitest';
import { createSecretBox, parseSecretKey, SecretKeyError } from '../../../services/ingest/inbound/secrets.ts';
import { refusalText, tooManyContactsTexts } from '../../../services/ingest/inbound/messages.ts';
import { MAX_MONITOR_CONTACTS, TooManyContactsError } from '../../../services/ingest/monitors/contacts.ts';
import { MAX_ROWS_PER_JOB } from '../../../services/domain/check-job.ts';
import { MAX_PEOPLE_PER_JOB } from '../../../services/api/schemas/check-job.ts';
import { DEFAULT_MAX_DATA_ROWS, fileRefusalMessage } from '../../../services/ingest/files/index.ts';
import { bareAddress, derivedId, messageKey, replyLocale, safeFilename, spreadsheetParts } from '../../../services/ingest/email/message-parts.ts';
import { replySubject, replyText } from '../../../services/ingest/email/reply.ts';
import { archiveName, baseName, errorName, isClaimable, parseProcessingName, processingName, resultName } from '../../../services/ingest/sftp/names.ts';
import { describeError } from '../../../services/ingest/sftp/poller.ts';
import { createStabilityTracker } from '../../../services/ingest/sftp/stability.ts';

const ID = '0b6f3f2e-8c1d-4e2a-9f10-123456789abc';

describe('drop-folder names', () => {
  it('carries the claim id in the processing name and finds it again', () => {
    const name = processingName('kunder uge 12.csv', ID);
    expect(name).toBe(`kunder uge 12.csv.${ID}.processing`);
    expect(parseProcessingName(name)).toEqual({ original: 'kunder uge 12.csv', claimId: ID });
    expect(parseProcessingName('x.processing')).toBeNull();
    expect(isClaimable(name)).toBe(false);
    expect(isClaimable('.upload.tmp')).toBe(false);
    expect(isClaimable('list.csv')).toBe(true);
  });

  it('names results, errors and archive copies, with the claim id when the name is taken', () => {
    expect(baseName('a.b.csv')).toBe('a.b');
    expect(baseName('README')).toBe('README');
    expect(baseName('.hidden')).toBe('.hidden');
    expect(resultName('list.xls', 'xlsx', ID, false)).toBe('list.result.xlsx');
    expect(resultName('list.csv', 'csv', ID, true)).toBe('list.0b6f3f2e.result.csv');
    expect(errorName('list.csv', ID, false)).toBe('list.error.txt');
    expect(errorName('list.csv', ID, true)).toBe('list.0b6f3f2e.error.txt');
    expect(archiveName('list.csv', ID, false)).toBe('list.csv');
    expect(archiveName('list.csv', ID, true)).toBe('0b6f3f2e.list.csv');
  });
});

describe("a monitor's contact limit in refusals", () => {
  it('names the limit of the refusing rule, in each language\'s own digits', () => {
    expect(tooManyContactsTexts(new TooManyContactsError(2500).limit)).toEqual({
      da: 'Filen har flere end 2.500 kontakter; en overvågning kan højst have 2.500.',
      en: 'The file has more than 2,500 contacts; a monitor holds at most 2,500.',
    });
    expect(tooManyContactsTexts(MAX_MONITOR_CONTACTS).da).toContain('højst have 1.000.000');
  });

  it('is the one job limit, which every row rule and its file refusal take', () => {
    expect(MAX_ROWS_PER_JOB).toBe(1_000_000);
    expect([MAX_MONITOR_CONTACTS, MAX_PEOPLE_PER_JOB, DEFAULT_MAX_DATA_ROWS]).toEqual([MAX_ROWS_PER_JOB, MAX_ROWS_PER_JOB, MAX_ROWS_PER_JOB]);
    expect(fileRefusalMessage('file_too_many_rows', 'da')).toBe('Filen har mere end 1.000.000 rækker. Del den op i flere filer.');
    expect(fileRefusalMessage('file_too_many_rows', 'en')).toBe('The file has more than 1,000,000 rows. Split it into several files.');
  });
});

describe('stability tracker', () => {
  it('reports a file only after size and mtime held still for the interval, and forgets what is gone', () => {
    const tracker = createStabilityTracker(1000);
    const file = (size: number, mtimeMs = 5) => [{ name: 'a.csv', size, mtimeMs }];
    expect(tracker.observe('f', file(10), 0)).toEqual([]);
    expect(tracker.observe('f', file(20), 900)).toEqual([]);
    expect(tracker.observe('f', file(20), 1800)).toEqual([]);
    expect(tracker.observe('f', file(20), 1900)).toEqual(['a.csv']);
    expect(tracker.observe('f', file(20, 6), 2000)).toEqual([]);
    expect(tracker.observe('g', file(20), 5000)).toEqual([]);
    expect(tracker.observe('f', [], 5000)).toEqual([]);
    expect(tracker.observe('f', file(20, 6), 9000)).toEqual([]);
    tracker.forget('f', 'a.csv');
    expect(tracker.observe('f', file(20, 6), 20_000)).toEqual([]);
  });

  it('reports a file renamed from a hidden name of the same size and mtime at once; anything else waits the interval', () => {
    const tracker = createStabilityTracker(1000);
    const entry = (name: string, size: number, mtimeMs = 5000) => ({ name, size, mtimeMs });
    // Listed while still being written under its hidden name, then complete, then renamed.
    expect(tracker.observe('f', [entry('.a.csv.part', 10)], 0)).toEqual([]);
    expect(tracker.observe('f', [entry('.a.csv.part', 20, 6000)], 100)).toEqual([]);
    expect(tracker.observe('f', [entry('a.csv', 20, 6000)], 200)).toEqual(['a.csv']);
    // Renamed right after a listing that saw it shorter: not the same file as seen, so the interval.
    expect(tracker.observe('f', [entry('.b.csv.part', 10, 7000)], 300)).toEqual([]);
    expect(tracker.observe('f', [entry('b.csv', 30, 8000)], 400)).toEqual([]);
    expect(tracker.observe('f', [entry('b.csv', 30, 8000)], 1400)).toEqual(['b.csv']);
    // A hidden name still there is no rename, whatever another file's size; nor is a hidden target.
    expect(tracker.observe('f', [entry('.c.part', 40), entry('.d.part', 50)], 2000)).toEqual([]);
    expect(tracker.observe('f', [entry('.c.part', 40), entry('c.csv', 40), entry('.e', 50)], 2100)).toEqual([]);
    // A file written straight under its own name waits the interval.
    expect(tracker.observe('g', [entry('d.csv', 40)], 0)).toEqual([]);
    expect(tracker.observe('g', [entry('d.csv', 40)], 999)).toEqual([]);
    expect(tracker.observe('g', [entry('d.csv', 40)], 1000)).toEqual(['d.csv']);
  });
});

describe('secret box', () => {
  const key = Buffer.alloc(32, 9);
  it('seals and opens; another record id, another key or a changed byte does not open', () => {
    const box = createSecretBox(key);
    const sealed = box.seal('-----BEGIN OPENSSH PRIVATE KEY-----\nabc', 'folder-1');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('abc');
    expect(box.open(sealed, 'folder-1')).toBe('-----BEGIN OPENSSH PRIVATE KEY-----\nabc');
    expect(box.seal('x', 'f')).not.toBe(box.seal('x', 'f'));
    expect(() => box.open(sealed, 'folder-2')).toThrow(SecretKeyError);
    expect(() => createSecretBox(Buffer.alloc(32, 1)).open(sealed, 'folder-1')).toThrow(SecretKeyError);
    const parts = sealed.split('.');
    parts[3] = `A${parts[3].slice(1)}` === parts[3] ? `B${parts[3].slice(1)}` : `A${parts[3].slice(1)}`;
    expect(() => box.open(parts.join('.'), 'folder-1')).toThrow(SecretKeyError);
  });
  it('needs a 32-byte key', () => {
    expect(() => parseSecretKey(undefined)).toThrow(/INBOUND_SECRET_KEY/);
    expect(() => parseSecretKey(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
    expect(parseSecretKey(key.toString('base64'))).toEqual(key);
  });
});

describe('email message parts', () => {
  const structure = {
    type: 'multipart/mixed',
    childNodes: [
      { part: '1', type: 'text/plain' },
      { part: '2', type: 'text/csv', disposition: 'attachment', dispositionParameters: { filename: 'liste.csv' } },
      { part: '3', type: 'image/png', disposition: 'inline', dispositionParameters: { filename: 'logo.png' } },
      { part: '4', type: 'application/octet-stream', disposition: 'attachment', dispositionParameters: { filename: '../../Ark.XLSX' } },
      { part: '5', type: 'application/vnd.ms-excel', parameters: { name: 'gammel' } },
    ],
  };
  it('finds spreadsheet attachments in order, with safe names', () => {
    expect(spreadsheetParts(structure)).toEqual([
      { part: '2', filename: 'liste.csv', index: 0 },
      { part: '4', filename: 'Ark.XLSX', index: 1 },
      { part: '5', filename: 'gammel', index: 2 },
    ]);
    expect(safeFilename('a\u0000b\\c/d.csv')).toBe('d.csv');
    expect(safeFilename('')).toBe('attachment');
  });
  it('derives stable uuids and keys; picks the reply language; reads bare addresses', () => {
    const a = derivedId('box', '<m@x>', 'attachment', '0');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedId('box', '<m@x>', 'attachment', '0')).toBe(a);
    expect(derivedId('box', '<m@x>', 'attachment', '1')).not.toBe(a);
    expect(messageKey(' <m@x> ', { from: '', date: '', subject: '', size: 0 })).toBe('<m@x>');
    expect(messageKey(undefined, { from: 'a', date: 'd', subject: 's', size: 1 })).toBe(messageKey('', { from: 'a', date: 'd', subject: 's', size: 1 }));
    expect(replyLocale('da', 'en-GB')).toBe('da');
    expect(replyLocale(null, 'en-GB')).toBe('en');
    expect(replyLocale(null, undefined)).toBe('da');
    expect(bareAddress('Anne <Anne@Example.DK>')).toBe('anne@example.dk');
    expect(bareAddress('not an address')).toBeNull();
  });
  it('writes the reply in the chosen language, one line per file', () => {
    const files = [
      { filename: 'a.csv', result: { path: '/tmp/x', name: 'a.result.csv' }, reason: null },
      { filename: 'b.xlsx', result: null, reason: 'The file is encrypted.' },
    ];
    expect(replyText({ locale: 'en', files })).toContain('- a.csv: checked, see a.result.csv\n- b.xlsx: not checked. The file is encrypted.');
    expect(replyText({ locale: 'da', files: [] })).toMatch(/ingen regneark/);
    expect(replySubject('da', 'Liste')).toBe('Sv: Liste');
    expect(replySubject('en', 'Re: Liste')).toBe('Re: Liste');
  });
});

describe('refusal text and recorded errors', () => {
  it('puts the preferred language first and the other after', () => {
    const text = refusalText('x.csv', { da: 'Tom fil.', en: 'Empty file.' }, 'en');
    expect(text).toBe('The file "x.csv" was not checked: Empty file.\n\nFilen "x.csv" blev ikke tjekket: Tom fil.\n');
  });
  it('shows messages only of errors known to hold no secret or personal data', () => {
    expect(describeError(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:22'), { code: 'ECONNREFUSED' }))).toBe('Error: connect ECONNREFUSED 10.0.0.1:22');
    expect(describeError(new Error('query failed near Anne Hansen'))).toBe('Error');
    const own = new Error('the SFTP server presented a host key other than the pinned one');
    own.name = 'HostKeyMismatchError';
    expect(describeError(own)).toMatch(/^HostKeyMismatchError: /);
  });
});
