'use strict';
// A small hand-written lock on ioredis, the shape of many teams' own:
// SET key value NX PX ttl, retried every 20 ms until the caller's wait runs
// out; release by compare-and-delete (a Lua script), or, with
// { plainDel: true }, by a plain DEL: the bug a paused holder turns into
// deleting the next holder's key.
const crypto = require('crypto');
const Redis = require('ioredis');

const CAD = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

exports.make = ({ plainDel }) => ({
  setup(env) {
    const redis = new Redis(env.redisOptions(0));
    let value = null;
    let until = 0;
    return {
      async acquire({ waitMs }) {
        const give = Date.now() + waitMs;
        const v = crypto.randomBytes(8).toString('hex');
        for (;;) {
          const sent = Date.now();
          const ok = await redis.set(env.key, v, 'PX', env.ttl, 'NX');
          if (ok === 'OK') { value = v; until = sent + env.ttl; return; }
          if (Date.now() + 20 > give) throw new Error('lock taken');
          await sleep(20);
        }
      },
      async release() {
        const v = value;
        value = null;
        if (plainDel) { await redis.del(env.key); return; }
        const n = await redis.eval(CAD, 1, env.key, v);
        if (n !== 1) throw new Error('lock not held');
      },
      until() { return until; },
    };
  },
});
