/**
 * The name an uploaded or received file is shown and downloaded under (the job's `filename`, the
 * result file's name): its base name only, without characters that change how the name reads
 * (docs/uploads.md "File names"). A right-to-left override made `kunder\u202Eslx.exe` display as
 * `kunderexe.xls`; NUL and other controls cut or break names in shells, logs and
 * Content-Disposition. Pure.
 */

/** C0 and C1 controls, DEL, and the bidirectional marks, embeddings, overrides and isolates. */
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const MAX_NAME_CHARS = 200;

/** The plain base name of `filename`, or null when nothing showable is left. */
export function plainFileName(filename: string | null | undefined): string | null {
  const base = (filename ?? '').split(/[\\/]/).pop() ?? '';
  const plain = base.replace(UNSHOWABLE, '').trim().slice(0, MAX_NAME_CHARS);
  return plain === '' || plain === '.' || plain === '..' ? null : plain;
}
