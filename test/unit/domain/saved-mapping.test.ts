/**
 * Which saved column mapping a file gets (docs/inbound.md "Saved column mappings on every
 * channel"): the header row at the mapping's header_row, folded as headerKey folds it, on a
 * channel the mapping applies to.
 */
import { describe, expect, it } from 'vitest';
import { appliesToChannel, savedMappingFor, type SavedMappingCandidate } from '../../../services/domain/saved-mapping.ts';

type Mapping = { header_row?: number; name?: number; address?: number };
const crm: SavedMappingCandidate<Mapping> = { columns: ['Kundenr.', 'Kunde', 'Sted'], column_mapping: { header_row: 0, name: 1, address: 2 } };

describe('savedMappingFor', () => {
  it('finds the mapping whose header row is the file\'s, after case, space and Unicode folding', () => {
    expect(savedMappingFor([crm], [['KUNDENR.', '  kunde ', 'Sted'], ['K-1', 'Anne', 'Vej 1']], 'sftp')).toBe(crm);
    // "å" written as a + combining ring is the same text after NFC.
    const composed = { ...crm, columns: ['Kundenr.', 'Kunde', 'Område'] };
    expect(savedMappingFor([composed], [['Kundenr.', 'Kunde', 'Omra\u030Ade']], 'email')).toBe(composed);
  });

  it('does not find it for another header row: a column added, removed, moved or renamed', () => {
    for (const header of [['Kundenr.', 'Kunde', 'Sted', 'Note'], ['Kunde', 'Sted'], ['Kunde', 'Kundenr.', 'Sted'], ['Kundenr.', 'Kunde', 'By']]) {
      expect(savedMappingFor([crm], [header], 'sftp')).toBeNull();
    }
  });

  it('ignores empty cells at the end of the row (a reader pads a short header row)', () => {
    expect(savedMappingFor([crm], [['Kundenr.', 'Kunde', 'Sted', '', null]], 'sftp')).toBe(crm);
  });

  it('reads the header row where the mapping has it, and never for a mapping without one', () => {
    const lower = { ...crm, column_mapping: { header_row: 1, name: 1, address: 2 } };
    expect(savedMappingFor([lower], [['Eksport 2026-11'], ['Kundenr.', 'Kunde', 'Sted']], 'sftp')).toBe(lower);
    expect(savedMappingFor([lower], [['Kundenr.', 'Kunde', 'Sted']], 'sftp')).toBeNull();
    const headerless = { ...crm, column_mapping: { header_row: -1, name: 1, address: 2 } };
    expect(savedMappingFor([headerless], [['Kundenr.', 'Kunde', 'Sted']], 'sftp')).toBeNull();
  });

  it('applies to every channel unless kept to some; the first that applies wins', () => {
    const uploadsOnly = { ...crm, channels: ['upload' as const] };
    const everywhere = { ...crm, column_mapping: { header_row: 0, name: 1 } };
    expect(savedMappingFor([uploadsOnly], [crm.columns], 'sftp')).toBeNull();
    expect(savedMappingFor([uploadsOnly], [crm.columns], 'upload')).toBe(uploadsOnly);
    expect(savedMappingFor([uploadsOnly, everywhere], [crm.columns], 'email')).toBe(everywhere);
    expect(appliesToChannel({ channels: null }, 'connector')).toBe(true);
    expect(appliesToChannel({ channels: ['sftp', 'email'] }, 'connector')).toBe(false);
  });
});
