import type { DirectoryEntry } from '../../domain/index.ts';
import { normalisePhone } from '../../domain/index.ts';
import { DirectoryUnavailableError, type PhoneDirectory } from './directory-port.ts';

/**
 * A directory provider's HTTP API (configuration PHONE_DIRECTORY_URL and PHONE_DIRECTORY_KEY).
 * The provider interface assumed (docs/companies.md "Phone checks"): `GET
 * {url}/numbers/{E.164, URL-encoded}` with `Authorization: Bearer {key}` answers 200 with
 * `{"number", "name", "address", "listed"}`, or 404 when the number is unknown. Anything else
 * (another status, a body that is not that shape, a timeout) makes the whole lookup fail with
 * DirectoryUnavailableError: an unknown answer is never turned into "not found".
 * At most `concurrency` requests are in flight; each has `timeoutMs`.
 */
export interface HttpDirectoryOptions {
  url: string;
  key: string;
  timeoutMs?: number;
  concurrency?: number;
  fetch?: typeof fetch;
}

export function createHttpDirectory(options: HttpDirectoryOptions): PhoneDirectory {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 5000;
  const concurrency = Math.max(1, options.concurrency ?? 16);

  async function lookupOne(number: string): Promise<DirectoryEntry | null> {
    let response: Response;
    try {
      response = await doFetch(`${base}/numbers/${encodeURIComponent(number)}`, {
        headers: { authorization: `Bearer ${options.key}`, accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new DirectoryUnavailableError('provider_failed', (error as Error).name);
    }
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new DirectoryUnavailableError('provider_failed', `HTTP ${response.status}`);
    }
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body || typeof body.name !== 'string' || typeof body.address !== 'string' || typeof body.listed !== 'boolean') {
      throw new DirectoryUnavailableError('provider_failed', 'unexpected body');
    }
    return { number: normalisePhone(body.number) ?? number, name: body.name, address: body.address, listed: body.listed };
  }

  return {
    async lookup(numbers) {
      const unique = [...new Set(numbers)];
      const answers = new Map<string, DirectoryEntry | null>();
      let next = 0;
      async function worker(): Promise<void> {
        while (next < unique.length) {
          const number = unique[next++];
          answers.set(number, await lookupOne(number));
        }
      }
      await Promise.all(Array.from({ length: Math.min(concurrency, unique.length) }, worker));
      return answers;
    },
  };
}
