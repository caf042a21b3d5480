import PDFDocument from 'pdfkit';
import type { Locale } from '../domain/types.ts';
import { CertificateClaimsSchema } from './schemas/certificate.ts';

/**
 * A job's certificate as a PDF a person or an auditor reads (docs/privacy-and-proof.md
 * "Certificates"): the organisation, the file, the counts, the list version and its publication
 * date, the time of the check, and how to verify it, with the signed token (the compact JWS,
 * which stays the proof) printed in full. Every figure is read from the token's own claims, so
 * the PDF can only say what the signature covers; the organisation's and file's names are
 * added from the job (the token holds ids, not names). No personal data: no row is in it.
 */
export interface CertificatePdfFacts {
  token: string;
  organisation: string;
  filename: string | null;
  source: string;
  /** Where the service answers, for the verification links (e.g. https://robinson.example). */
  baseUrl: string;
  locale: Locale;
}

export const TEXT = {
  da: {
    title: 'Certifikat for tjek mod Robinsonlisten',
    intro: 'Dette certifikat bekræfter, at nedenstående job er tjekket mod Robinsonlisten. Tallene er dem, det digitale certifikat (en underskrevet token) indeholder.',
    organisation: 'Organisation', file: 'Fil', noFile: '(ingen fil: personer sendt via API)', source: 'Kilde', job: 'Job-id',
    checkedAt: 'Tjekket', list: 'Listeversion', published: 'udgivet', rows: 'Rækker', blocked: 'Blokeret', allowed: 'Tilladt',
    manual: 'Manuel vurdering', levels: 'Rækker pr. matchniveau', unread: 'ulæst', input: 'SHA-256 af den indsendte fil',
    verifyTitle: 'Sådan efterprøves certifikatet',
    verify: 'Tokenen nedenfor er underskrevet med Ed25519 (EdDSA, compact JWS). Den kan efterprøves med en API-nøgle på adressen herunder, eller uden os med den offentlige nøgle fra JWKS-adressen (feltet kid i tokenens header angiver nøglen).',
    verifyLink: 'Efterprøv', keys: 'Offentlige nøgler', token: 'Underskrevet token',
  },
  en: {
    title: 'Certificate of a check against the Robinson list',
    intro: 'This certificate confirms that the job below was checked against the Robinson list. The figures are those the digital certificate (a signed token) holds.',
    organisation: 'Organisation', file: 'File', noFile: '(no file: people sent through the API)', source: 'Source', job: 'Job id',
    checkedAt: 'Checked', list: 'List version', published: 'published', rows: 'Rows', blocked: 'Blocked', allowed: 'Allowed',
    manual: 'Manual review', levels: 'Rows per match level', unread: 'unread', input: 'SHA-256 of the submitted file',
    verifyTitle: 'How to verify this certificate',
    verify: 'The token below is signed with Ed25519 (EdDSA, compact JWS). It can be verified with an API key at the address below, or without us using the public key from the JWKS address (the token header\'s kid names the key).',
    verifyLink: 'Verify', keys: 'Public keys', token: 'Signed token',
  },
} as const;

/** Characters of the token per printed line (Courier 7 pt fits the page's width). */
const TOKEN_LINE_CHARS = 90;

/**
 * The token in lines of at most TOKEN_LINE_CHARS, none ending with `-` (base64url has it): text
 * readers take a hyphen at a line's end for a word broken over two lines and drop it when they
 * join them (Debian's pdftotext did), so a copied token would lose a character. Such a line ends
 * one character sooner and the `-` starts the next. Broken anywhere else: the token has no spaces.
 */
export function tokenLines(token: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < token.length) {
    let end = Math.min(start + TOKEN_LINE_CHARS, token.length);
    while (end < token.length && end - 1 > start && token[end - 1] === '-') end--;
    lines.push(token.slice(start, end));
    start = end;
  }
  return lines;
}

/** The claims of a compact JWS we signed (the caller's job record holds it); throws on another shape. */
function claimsOf(token: string) {
  const payload = token.split('.')[1] ?? '';
  return CertificateClaimsSchema.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
}

/** The PDF's bytes. Small (one page, standard fonts), so made whole in memory. */
export async function certificatePdf(facts: CertificatePdfFacts): Promise<Buffer> {
  const claims = claimsOf(facts.token);
  const t = TEXT[facts.locale];
  const n = (v: number) => v.toLocaleString(facts.locale === 'da' ? 'da-DK' : 'en');
  // Fixed metadata dates: the same certificate gives the same bytes, whenever it is downloaded.
  const finished = new Date(claims.finished_at);
  const doc = new PDFDocument({
    size: 'A4', margin: 56, lang: facts.locale,
    info: { Title: t.title, Author: facts.organisation, Subject: claims.job_id, CreationDate: finished, ModDate: finished },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.font('Helvetica-Bold').fontSize(18).text(t.title);
  doc.moveDown(0.5).font('Helvetica').fontSize(10).text(t.intro);
  doc.moveDown();
  const row = (label: string, value: string) => {
    doc.font('Helvetica-Bold').fontSize(11).text(`${label}: `, { continued: true }).font('Helvetica').text(value);
  };
  row(t.organisation, facts.organisation);
  row(t.file, facts.filename ?? t.noFile);
  row(t.source, facts.source);
  row(t.job, claims.job_id);
  row(t.checkedAt, `${claims.finished_at.slice(0, 19).replace('T', ' ')} UTC`);
  row(t.list, `${t.published} ${claims.list_version.published_on} (${claims.list_version.id})`);
  doc.moveDown(0.5);
  row(t.rows, n(claims.row_count));
  row(t.blocked, n(claims.counts.blocked));
  row(t.allowed, n(claims.counts.allowed));
  row(t.manual, n(claims.counts.manual));
  const levels = claims.counts.level_counts;
  row(t.levels, `0: ${n(levels['0'])}, 1: ${n(levels['1'])}, 2: ${n(levels['2'])}, 3: ${n(levels['3'])}, 4: ${n(levels['4'])}, 5: ${n(levels['5'])}, ${t.unread}: ${n(levels.unread)}`);
  // The hash on a line of its own, monospaced: it is compared character by character.
  doc.font('Helvetica-Bold').fontSize(11).text(`${t.input}:`);
  doc.font('Courier').fontSize(10).text(claims.input_sha256);

  doc.moveDown();
  doc.font('Helvetica-Bold').fontSize(13).text(t.verifyTitle);
  doc.moveDown(0.3).font('Helvetica').fontSize(10).text(t.verify);
  const verifyUrl = `${facts.baseUrl}/v2/certificates/${facts.token}`;
  const jwksUrl = `${facts.baseUrl}/v2/.well-known/jwks.json`;
  doc.moveDown(0.5).font('Helvetica-Bold').text(`${t.verifyLink}: `, { continued: true })
    .font('Helvetica').fillColor('#1a4f8b').text(`${facts.baseUrl}/v2/certificates/<token>`, { link: verifyUrl, underline: true }).fillColor('black');
  doc.font('Helvetica-Bold').text(`${t.keys}: `, { continued: true }).font('Helvetica').fillColor('#1a4f8b').text(jwksUrl, { link: jwksUrl, underline: true }).fillColor('black');
  doc.moveDown(0.5).font('Helvetica-Bold').text(`${t.token}:`);
  doc.font('Courier').fontSize(7).text(tokenLines(facts.token).join('\n'));
  doc.end();
  return done;
}
