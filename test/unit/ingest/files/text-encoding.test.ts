import { describe, expect, it } from 'vitest';
import { detectTextEncoding, encodeText } from '../../../../services/ingest/files/text-encoding.ts';

describe('text encodings of CSV files', () => {
  it('tells the encodings apart by BOM, zero bytes and UTF-8 validity', () => {
    expect(detectTextEncoding(Buffer.from('\ufeffNavn;By\r\n', 'utf8'))).toBe('utf-8-bom');
    expect(detectTextEncoding(Buffer.from('\ufeffNavn;By\r\n', 'utf16le'))).toBe('utf-16le');
    expect(detectTextEncoding(Buffer.from('\ufeffNavn;By\r\n', 'utf16le').swap16())).toBe('utf-16be');
    expect(detectTextEncoding(Buffer.from('Navn;By\r\nSøren;Århus\r\n', 'utf16le'))).toBe('utf-16le');
    expect(detectTextEncoding(Buffer.from('Navn;By\r\nSøren;Århus\r\n', 'utf8'))).toBe('utf-8');
    expect(detectTextEncoding(Buffer.from('Navn;By\r\nSøren;Århus\r\n', 'latin1'))).toBe('windows-1252');
    // A multi-byte letter cut off at the end of the sample is still UTF-8.
    expect(detectTextEncoding(Buffer.from('Navn;Ø', 'utf8').subarray(0, 6))).toBe('utf-8');
  });

  it('writes Windows-1252 as Windows-1252 reads it back, € and curly quotes included; others become ?', () => {
    const text = 'Søren Ærø “Å” – 100 € ‰ Ω 😀';
    const bytes = encodeText(text, 'windows-1252');
    expect(new TextDecoder('windows-1252').decode(bytes)).toBe('Søren Ærø “Å” – 100 € ‰ ? ?');
    expect(encodeText('Søren', 'windows-1252')).toEqual(Buffer.from([0x53, 0xf8, 0x72, 0x65, 0x6e]));
  });

  it('writes UTF-16 BE and LE byte orders', () => {
    expect(Buffer.from(encodeText('Aø', 'utf-16be'))).toEqual(Buffer.from([0x00, 0x41, 0x00, 0xf8]));
    expect(Buffer.from(encodeText('Aø', 'utf-16le'))).toEqual(Buffer.from([0x41, 0x00, 0xf8, 0x00]));
  });
});
