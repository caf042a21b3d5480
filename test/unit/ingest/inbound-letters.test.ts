import { describe, expect, it } from 'vitest';
import {
  monitorReceiptText, refusalText, resultSummaryText, tooManyContactsTexts, unchangedContacts, type ResultSummary,
} from '../../../services/ingest/inbound/messages.ts';

/** The letters an inbound channel writes back (services/ingest/inbound/messages.ts LETTER_TEXTS), word for word. */
const summary: ResultSummary = {
  filename: 'kunder.csv', resultName: 'kunder.result.csv', rows: 12345, blocked: 1200, allowed: 11000, manual: 145,
  listPublishedOn: '2026-10-01', finishedAt: '2026-11-26T10:15:00.000Z',
};

describe('inbound letters', () => {
  it('a result summary: both languages, the preferred first, counts written as each language writes them', () => {
    expect(resultSummaryText(summary, 'da')).toBe(
      'Filen "kunder.csv" er tjekket mod Robinsonlisten (udgivet 2026-10-01) 2026-11-26 10:15 UTC.\n'
      + '12.345 rækker: 1.200 blokeret, 11.000 tilladt, 145 til manuel vurdering.\n'
      + 'Resultatet står i kunder.result.csv.\n\n'
      + 'The file "kunder.csv" was checked against the Robinson list (published 2026-10-01) at 2026-11-26 10:15 UTC.\n'
      + '12,345 rows: 1,200 blocked, 11,000 allowed, 145 for manual review.\n'
      + 'The result is in kunder.result.csv.\n',
    );
  });

  it('a result summary without list date or time leaves both fragments out', () => {
    expect(resultSummaryText({ ...summary, listPublishedOn: null, finishedAt: null }, 'en').split('\n\n')[0]).toBe(
      'The file "kunder.csv" was checked against the Robinson list.\n'
      + '12,345 rows: 1,200 blocked, 11,000 allowed, 145 for manual review.\n'
      + 'The result is in kunder.result.csv.',
    );
  });

  it('a monitor receipt, with and without the count of contacts', () => {
    expect(monitorReceiptText('k.xlsx', 'm-1', 1500, 'en').split('\n\n')[0])
      .toBe('The file "k.xlsx" replaced the contacts of monitor m-1 (1500 contacts). They are checked against the active list version; the result comes as a job with source "monitor".');
    expect(monitorReceiptText('k.xlsx', 'm-1', null, 'da').split('\n\n')[0])
      .toBe('Filen "k.xlsx" har erstattet kontakterne i overvågning m-1. De tjekkes mod den aktive listeversion; resultatet kommer som et job med source "monitor".');
  });

  it('a refusal of a monitor file with too many contacts; a file name with braces stays as it is', () => {
    expect(refusalText('x{reason}.csv', unchangedContacts(tooManyContactsTexts(100000)), 'da')).toBe(
      'Filen "x{reason}.csv" blev ikke tjekket: Filen har flere end 100.000 kontakter; en overvågning kan højst have 100.000. Overvågningens kontakter er uændrede.\n\n'
      + 'The file "x{reason}.csv" was not checked: The file has more than 100,000 contacts; a monitor holds at most 100,000. The monitor\'s contacts are unchanged.\n',
    );
  });
});
