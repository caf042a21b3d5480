/**
 * POST /v2/checks taken apart, for profiling and A/B runs of the synchronous check (test/bench/README.md
 * "The synchronous check alone"): on http.bench.ts's API and 1,000-person body, each stage of the
 * request timed on its own, in this process, median and best of STAGES_PASSES (default 50):
 * the floor (JSON.parse of the body + JSON.stringify of the answer), the body's decoding and
 * parsing as the API does them, the request schema and its shortcut, the domain check of every person, the answer's
 * serialisation and its UTF-8 bytes, a usage event published on the API thread (what each live check
 * did before it answered until usage events were grouped and moved to a thread of their own), and
 * the whole request through `app.inject` (no socket).
 *
 * Not a bench of its own (no goal, no report): it prints one JSON object with the load average.
 * Run: `node test/bench/sync-check-stages.ts`.
 */
import { loadavg } from 'node:os';
import { plainChecksRequest } from '../../services/api/checks-body.ts';
import { wellFormedEverywhere } from '../../services/api/json-body.ts';
import { CreateChecksRequestSchema, CreateChecksResponseSchema, type CreateChecksResponse } from '../../services/api/schemas/checks.ts';
import { checkPerson } from '../../services/domain/index.ts';
import type { CheckOptions } from '../../services/domain/types.ts';
import { toListVersionRef } from '../../services/registers/lists/active-index.ts';
import { batchOfPeople, startBenchApi } from './http.bench.ts';

const PASSES = Number(process.env.STAGES_PASSES ?? 50);

/** Median and best of PASSES runs of `work` (awaited when it returns a promise), after one to warm up. */
async function stage(work: () => unknown): Promise<{ median: number; best: number }> {
  await work();
  const times: number[] = [];
  for (let i = 0; i < PASSES; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return { median: round(times[Math.floor(times.length / 2)]), best: round(times[0]) };
}

const { app, key, orgId, activeIndex, events, close } = await startBenchApi();
try {
  const active = activeIndex.current();
  if (!active) throw new Error('no active list');
  const body = JSON.stringify({ people: batchOfPeople() });
  const bytes = Buffer.from(body);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const probe = await app.inject({ method: 'POST', url: '/v2/checks', headers, payload: body });
  if (probe.statusCode !== 200) throw new Error(`probe answered ${probe.statusCode}`);
  const answer = JSON.parse(probe.body) as CreateChecksResponse;
  const parsed = JSON.parse(body) as { people: Parameters<typeof checkPerson>[1][] };
  const options: CheckOptions = { policy: 'standard', stopLevel: 1, locale: 'da' };
  const checked: CreateChecksResponse = { list_version: toListVersionRef(active.version), results: parsed.people.map((p) => checkPerson(active.index, p, options)) };
  const strict = new TextDecoder('utf-8', { fatal: true });

  const usage = {
    type: 'CheckUsage' as const,
    value: { org_id: orgId, kind: 'person_check' as const, count: 1000, job_id: null, request_id: 'stages', list_version_id: active.version.id, at: new Date().toISOString(), key_id: 'stages' },
  };
  const stages = {
    floor: await stage(() => [JSON.parse(body), JSON.stringify(answer)]),
    'JSON.parse of the body': await stage(() => JSON.parse(body)),
    'decode the body (strict UTF-8)': await stage(() => strict.decode(bytes)),
    'well-formed strings check': await stage(() => wellFormedEverywhere(parsed)),
    'request schema (zod)': await stage(() => CreateChecksRequestSchema.parse(parsed)),
    'request shortcut (checks-body.ts)': await stage(() => plainChecksRequest(parsed)),
    'domain check, 1,000 people': await stage(() => parsed.people.map((p) => checkPerson(active.index, p, options))),
    'response schema (zod)': await stage(() => CreateChecksResponseSchema.parse(checked)),
    'JSON.stringify of the checked answer': await stage(() => JSON.stringify(checked)),
    'JSON.stringify of the schema-parsed answer': await stage(() => JSON.stringify(CreateChecksResponseSchema.parse(checked))),
    'UTF-8 bytes of the answer': await stage(() => Buffer.from(probe.body)),
    'usage event published (embedded log, durable)': await stage(() => events.publish(usage)),
  };
  const times: number[] = [];
  const cpuBefore = process.threadCpuUsage();
  for (let i = 0; i < PASSES; i++) {
    const started = performance.now();
    const res = await app.inject({ method: 'POST', url: '/v2/checks', headers, payload: body });
    times.push(performance.now() - started);
    if (res.statusCode !== 200 || res.body.length !== probe.body.length) throw new Error(`inject answered ${res.statusCode}`);
  }
  const cpu = process.threadCpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({
    load: loadavg()[0], passes: PASSES, body_kib: Math.round(bytes.length / 1024), answer_kib: Math.round(probe.body.length / 1024),
    stages_ms: stages, inject_ms: { median: times[Math.floor(times.length / 2)], best: times[0], p99: times[Math.ceil(0.99 * times.length) - 1] },
    // CPU of this thread per request (the inject loop only): what the machine's load does not stretch.
    inject_cpu_ms_per_request: Math.round(((cpu.user + cpu.system) / 1000 / PASSES) * 1000) / 1000,
  }, null, 2));
} finally {
  await close();
}
