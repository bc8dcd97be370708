'use strict';
// A lock whose acquire never ends and keeps the process busy: a
// setImmediate loop, runnable forever within one step.
exports.setup = () => ({
  acquire() { const spin = () => setImmediate(spin); spin(); return new Promise(() => {}); },
  release() {},
});
