// The same inputs through ESM imports of the builtins.
import { setTimeout as sleep } from 'node:timers/promises';
import { setTimeout } from 'node:timers';
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { lookup } from 'node:dns/promises';

export async function inputs() {
  await sleep(2);
  await new Promise((r) => setTimeout(r, 1));
  let dns = 'resolved';
  try { await lookup('example.com'); } catch (e) { dns = e.code; }
  return [randomBytes(4).toString('hex'), randomUUID(), performance.now(), Date.now(), dns];
}
