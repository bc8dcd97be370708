'use strict';
// A lock whose acquire never ends while a timer ticks every virtual
// millisecond: a step per tick, for ever.
exports.setup = () => ({
  acquire() { setInterval(() => {}, 1); return new Promise(() => {}); },
  release() {},
});
