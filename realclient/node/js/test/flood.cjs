'use strict';
// A lock that writes without bound to its socket: a 64 KiB ECHO every
// virtual millisecond.
const net = require('net');
exports.setup = (env) => {
  const s = net.connect(env.hosts[0].port, env.hosts[0].host);
  s.on('error', () => {});
  s.on('data', () => {});
  return {
    acquire() {
      const n = 1 << 16;
      const big = Buffer.from('*2\r\n$4\r\nECHO\r\n$' + n + '\r\n' + 'x'.repeat(n) + '\r\n');
      const again = () => { s.write(big); setTimeout(again, 1); };
      s.on('connect', again);
      return new Promise(() => {});
    },
    release() {},
  };
};
