'use strict';
// redis-semaphore 5.8.0's Mutex on ioredis (one node): acquire(),
// release(); its own refresh timer keeps the lease (refreshInterval, 80%
// of lockTimeout by default), so no extend is given to the workload.
const Redis = require('ioredis');
const { Mutex } = require('redis-semaphore');

exports.setup = (env) => {
  const client = new Redis(env.redisOptions(0));
  let mutex = null;
  return {
    async acquire() {
      mutex = new Mutex(client, env.key, {
        lockTimeout: env.ttl,
        acquireTimeout: env.waitMs,
        retryInterval: 20,
        onLockLost() {}, // the default throws from a timer: the history shows the loss
      });
      await mutex.acquire();
    },
    async release() { const m = mutex; mutex = null; await m.release(); },
  };
};
