'use strict';
// redlock 5.0.0-beta.2 (installed as the alias "redlock5") on ioredis:
// acquire([resource], duration), release(), extend(duration).
const Redis = require('ioredis');
const Redlock = require('redlock5').default;

exports.setup = (env) => {
  const clients = env.hosts.map((_, i) => new Redis(env.redisOptions(i)));
  const redlock = new Redlock(clients, {
    retryCount: Math.max(0, Math.floor(env.waitMs / 200)),
    retryDelay: 200,
    retryJitter: 100,
  });
  redlock.on('error', () => {});
  let lock = null;
  return {
    async acquire() { lock = await redlock.acquire([env.key], env.ttl); },
    async release() { const l = lock; lock = null; await l.release(); },
    async extend() { lock = await lock.extend(env.ttl); },
    until() { return lock ? lock.expiration : 0; },
  };
};
