'use strict';
// redis-semaphore's Mutex on ioredis (one node), for the release the
// package name gives: acquire(), release(); the library's own refresh
// timer keeps the lease (refreshInterval: 80% of lockTimeout). until()
// tells the caller what the library knows: held (as far as the refresh
// timer knows, the lease lasts) until onLockLost fires, then nothing.
const Redis = require('ioredis');

exports.make = (pkg) => {
  const { Mutex } = require(pkg);
  return {
    setup(env) {
      const client = new Redis(env.redisOptions(0));
      let mutex = null;
      let lost = false;
      return {
        async acquire() {
          lost = false;
          mutex = new Mutex(client, env.key, {
            lockTimeout: env.ttl,
            acquireTimeout: env.waitMs,
            retryInterval: 20,
            onLockLost() { lost = true; }, // the default throws from a timer
          });
          await mutex.acquire();
        },
        async release() { const m = mutex; mutex = null; await m.release(); },
        until() { return mutex && mutex.isAcquired && !lost ? Date.now() + 3600e3 : 0; },
      };
    },
  };
};
