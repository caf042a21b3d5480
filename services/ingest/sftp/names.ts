/**
 * File names in a drop folder (docs/decisions.md §15). Pure functions, no I/O.
 *
 * - A file is claimed by renaming `inbox/<name>` to `inbox/<name>.<claim id>.processing`: the
 *   claim id (a uuid, also the job's id) travels in the name, so a process killed right after the
 *   rename finds its claim again from the listing alone.
 * - Names starting with `.` are never claimed: many clients upload to a hidden temporary name and
 *   rename when done, and our own partial uploads are hidden.
 * - The result of `<base>.<ext>` is `outbox/<base>.result.<csv|xlsx>`, a refusal
 *   `failed/<base>.error.txt`; when that name is already taken by another file, the claim id's
 *   first 8 characters go before `.result`/`.error` (nothing a customer has is ever replaced).
 */
const PROCESSING = /^(.+)\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.processing$/;

export function processingName(original: string, claimId: string): string {
  return `${original}.${claimId}.processing`;
}

/** The original name and claim id of a processing name, or null for any other name. */
export function parseProcessingName(name: string): { original: string; claimId: string } | null {
  const match = PROCESSING.exec(name);
  return match ? { original: match[1], claimId: match[2] } : null;
}

/** A file a customer dropped and we may claim (not hidden, not one of our processing names). */
export function isClaimable(name: string): boolean {
  return !name.startsWith('.') && parseProcessingName(name) === null;
}

/** `list.final.csv` → `list.final`; a name without an extension is its own base. */
export function baseName(original: string): string {
  const dot = original.lastIndexOf('.');
  return dot > 0 ? original.slice(0, dot) : original;
}

export function resultName(original: string, ext: 'csv' | 'xlsx', claimId: string, taken: boolean): string {
  return `${baseName(original)}${taken ? `.${claimId.slice(0, 8)}` : ''}.result.${ext}`;
}

/**
 * The counts beside a result (`outbox/<base>.result.txt` next to `<base>.result.csv`): named from
 * the result's own name, so the two always pair up, also when the claim id is in them.
 */
export function summaryNameOf(resultPath: string): string {
  return resultPath.replace(/\.(csv|xlsx)$/, '.txt');
}

/** The receipt of a file that replaced a monitor's contacts (outbox/). */
export function receiptName(original: string, claimId: string, taken: boolean): string {
  return `${baseName(original)}${taken ? `.${claimId.slice(0, 8)}` : ''}.receipt.txt`;
}

export function errorName(original: string, claimId: string, taken: boolean): string {
  return `${baseName(original)}${taken ? `.${claimId.slice(0, 8)}` : ''}.error.txt`;
}

/** Where the dropped file itself is kept until delete_after: its original name, else with the claim id. */
export function archiveName(original: string, claimId: string, taken: boolean): string {
  return taken ? `${claimId.slice(0, 8)}.${original}` : original;
}
