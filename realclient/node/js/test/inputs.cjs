'use strict';
// Records every input the bridge replaces, as ESM and CommonJS see them,
// and writes them to the key as the lock value: the run's history carries
// them, so two processes' histories differ if one input leaks.
const crypto = require('crypto');
const Redis = require('ioredis');
exports.setup = async (env) => {
  const esm = await import('./inputs-esm.mjs');
  const redis = new Redis(env.redisOptions(0));
  const tp = require('timers/promises');
  return {
    async acquire() {
      await tp.setTimeout(3);
      await new Promise((r) => setImmediate(r));
      const ac = AbortSignal.timeout(2);
      await new Promise((r) => ac.addEventListener('abort', r));
      const seen = [
        Date.now(), new Date().toISOString(), performance.now(), performance.timeOrigin,
        process.hrtime().join('.'), String(process.hrtime.bigint()), Math.random(),
        crypto.randomBytes(4).toString('hex'), crypto.randomInt(1000), crypto.randomUUID(),
        Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString('hex'),
        Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(4))).toString('hex'),
        crypto.randomFillSync(Buffer.alloc(4)).toString('hex'),
        ...(await esm.inputs()),
      ].join('|');
      await redis.set('inputs', seen);
      const ok = await redis.set(env.key, 'x', 'PX', env.ttl, 'NX');
      if (ok !== 'OK') throw new Error('taken');
    },
    async release() { await redis.del(env.key); },
  };
};
