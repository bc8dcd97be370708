'use strict';
// redlock 4.2.0 (npm "redlock", Bluebird promises) on ioredis, one client
// per master: lock(resource, ttl), unlock(), extend(ttl).
const Redis = require('ioredis');
const Redlock = require('redlock');

exports.setup = (env) => {
  const clients = env.hosts.map((_, i) => new Redis(env.redisOptions(i)));
  const redlock = new Redlock(clients, {
    retryCount: Math.max(0, Math.floor(env.waitMs / 200)), // the caller's acquire wait
    retryDelay: 200,
    retryJitter: 100,
  });
  redlock.on('clientError', () => {}); // a node error is the run's point, not a crash
  let lock = null;
  return {
    async acquire() { lock = await redlock.lock(env.key, env.ttl); },
    async release() { const l = lock; lock = null; await l.unlock(); },
    async extend() { lock = await lock.extend(env.ttl); },
    until() { return lock ? lock.expiration : 0; },
  };
};
