'use strict';
// locksim's Node.js bridge, preloaded with `node --require` before any
// user code: it replaces every input a lock library can observe (time,
// timers, sockets, DNS, randomness) with the simulation's, and refuses
// what the simulation cannot drive (native add-ons, worker threads).
// host.cjs runs the step loop on top of it. Nothing here reads the wall
// clock or the OS's randomness after start-up.

const stream = require('stream');
const net = require('net');
const tls = require('tls');
const dns = require('dns');
const crypto = require('crypto');
const timers = require('timers');
const timersPromises = require('timers/promises');
const perfHooks = require('perf_hooks');
const Module = require('module');

const real = {
  setImmediate: global.setImmediate,
  Date: global.Date,
};

// ---- the virtual clock ----------------------------------------------------
// nowNs: true time since the run's epoch (the Go side's bubble clock);
// EPOCH_MS: the bubble's epoch, 2000-01-01T00:00:00Z, in Unix ms.
const EPOCH_MS = 946684800000;
const S = {
  nowNs: 0,
  startNs: 0, // performance.now's zero: the incarnation's start
  timers: [], // {id, at, seq, fn, args, repeat, ref, obj}
  immediates: [],
  seq: 0,
  nextId: 1,
  sockets: new Map(), // id -> FakeSocket
  nextSock: 1,
  out: [], // what the process did since the last report
  rng: null,
  generation: 0, // bumped by reset: callbacks of an earlier incarnation never run
  reads: 0, // clock reads and random draws: host.cjs tells a question that reads neither
};

function nowMs() { S.reads++; return EPOCH_MS + Math.floor(S.nowNs / 1e6); }

// ---- randomness: one seeded generator (xoshiro128**) ----------------------
function makeRng(seed) {
  // splitmix32 expands the seed into the state
  let x = (Number(BigInt.asUintN(32, BigInt(seed))) ^ 0x9e3779b9) >>> 0;
  let y = (Number(BigInt.asUintN(32, BigInt(seed) >> 32n)) ^ 0x85ebca6b) >>> 0;
  function sm() {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x ^ y;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    y = (y + 1) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  }
  const s = [sm(), sm(), sm(), sm()];
  if ((s[0] | s[1] | s[2] | s[3]) === 0) s[0] = 1;
  return function next32() {
    S.reads++;
    const r = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = rotl(s[3], 11);
    return r;
  };
}
function rotl(v, k) { return ((v << k) | (v >>> (32 - k))) >>> 0; }
S.rng = makeRng(1);

function fillRandom(view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  for (let i = 0; i < bytes.length; i++) bytes[i] = S.rng() & 0xff;
  return view;
}

Math.random = function random() {
  // 53 bits from two draws, as V8's doubles
  return ((S.rng() >>> 5) * 67108864 + (S.rng() >>> 6)) / 9007199254740992;
};

crypto.randomBytes = function randomBytes(size, cb) {
  const b = fillRandom(Buffer.alloc(size));
  if (typeof cb === 'function') { process.nextTick(cb, null, b); return undefined; }
  return b;
};
crypto.pseudoRandomBytes = crypto.randomBytes;
crypto.randomFillSync = function randomFillSync(buf, offset = 0, size) {
  const view = ArrayBuffer.isView(buf) ? buf : new Uint8Array(buf);
  const u8 = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const end = size === undefined ? u8.length : offset + size;
  fillRandom(u8.subarray(offset, end));
  return buf;
};
crypto.randomFill = function randomFill(buf, offset, size, cb) {
  if (typeof offset === 'function') { cb = offset; offset = 0; size = undefined; }
  else if (typeof size === 'function') { cb = size; size = undefined; }
  crypto.randomFillSync(buf, offset, size);
  process.nextTick(cb, null, buf);
};
crypto.randomInt = function randomInt(min, max, cb) {
  if (max === undefined || typeof max === 'function') { cb = max; max = min; min = 0; }
  const range = max - min;
  const v = min + Math.floor(Math.random() * range);
  if (typeof cb === 'function') { process.nextTick(cb, null, v); return undefined; }
  return v;
};
crypto.randomUUID = function randomUUID() {
  const b = fillRandom(Buffer.alloc(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
const getRandomValues = function getRandomValues(view) { return fillRandom(view); };
// crypto.getRandomValues is a getter that reads webcrypto's.
for (const wc of [crypto.webcrypto, globalThis.crypto, Object.getPrototypeOf(crypto.webcrypto)]) {
  if (!wc) continue;
  Object.defineProperty(wc, 'getRandomValues', { value: getRandomValues, configurable: true, writable: true });
  Object.defineProperty(wc, 'randomUUID', { value: crypto.randomUUID, configurable: true, writable: true });
}

// ---- Date -----------------------------------------------------------------
const RealDate = real.Date;
function VDate(...args) {
  if (!new.target) return new RealDate(nowMs()).toString();
  if (args.length === 0) return Reflect.construct(RealDate, [nowMs()], new.target);
  return Reflect.construct(RealDate, args, new.target);
}
VDate.prototype = RealDate.prototype;
Object.setPrototypeOf(VDate, RealDate);
VDate.now = function now() { return nowMs(); };
VDate.parse = RealDate.parse;
VDate.UTC = RealDate.UTC;
global.Date = VDate;

// ---- performance, hrtime ----------------------------------------------------
const perf = perfHooks.performance;
const perfNow = function now() { S.reads++; return (S.nowNs - S.startNs) / 1e6; };
Object.defineProperty(perf, 'now', { value: perfNow, configurable: true, writable: true });
Object.defineProperty(perf, 'timeOrigin', { get() { return EPOCH_MS + S.startNs / 1e6; }, configurable: true });
function hrtime(prev) {
  S.reads++;
  const ns = BigInt(S.nowNs);
  let s = Number(ns / 1000000000n);
  let n = Number(ns % 1000000000n);
  if (prev) {
    s -= prev[0]; n -= prev[1];
    if (n < 0) { s--; n += 1e9; }
  }
  return [s, n];
}
hrtime.bigint = function bigint() { S.reads++; return BigInt(S.nowNs); };
process.hrtime = hrtime;

// ---- timers ---------------------------------------------------------------
class VTimeout {
  constructor(t) { this._t = t; }
  ref() { this._t.ref = true; return this; }
  unref() { this._t.ref = false; return this; }
  hasRef() { return this._t.ref; }
  refresh() {
    const t = this._t;
    t.at = S.nowNs + t.delayNs; t.seq = ++S.seq;
    if (!S.timers.includes(t)) S.timers.push(t);
    return this;
  }
  close() { removeTimer(this._t); return this; }
  [Symbol.toPrimitive]() { return this._t.id; }
}
class VImmediate {
  constructor(t) { this._t = t; }
  ref() { return this; }
  unref() { return this; }
  hasRef() { return true; }
}

function delayNs(ms) {
  ms = Number(ms);
  if (!(ms >= 1 && ms <= 2147483647)) ms = 1; // Node's rule: out of range or NaN is 1 ms
  return Math.round(ms * 1e6);
}
function addTimer(fn, ms, args, repeat) {
  if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function');
  const d = delayNs(ms);
  const t = { id: S.nextId++, at: S.nowNs + d, delayNs: d, seq: ++S.seq, fn, args, repeat, ref: true, gen: S.generation };
  t.obj = new VTimeout(t);
  S.timers.push(t);
  return t.obj;
}
function removeTimer(t) {
  const i = S.timers.indexOf(t);
  if (i >= 0) S.timers.splice(i, 1);
}
function clearT(x) {
  if (x == null) return;
  if (x instanceof VTimeout) { removeTimer(x._t); return; }
  if (x instanceof VImmediate) { const i = S.immediates.indexOf(x._t); if (i >= 0) S.immediates.splice(i, 1); return; }
  const id = Number(x);
  const t = S.timers.find((t) => t.id === id);
  if (t) removeTimer(t);
}
const vSetTimeout = function setTimeout(fn, ms, ...args) { return addTimer(fn, ms, args, false); };
const vSetInterval = function setInterval(fn, ms, ...args) { return addTimer(fn, ms, args, true); };
const vSetImmediate = function setImmediate(fn, ...args) {
  if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function');
  const t = { fn, args, gen: S.generation };
  S.immediates.push(t);
  return new VImmediate(t);
};
const vClear = function clearTimeout(x) { clearT(x); };
for (const o of [global, timers]) {
  o.setTimeout = vSetTimeout;
  o.setInterval = vSetInterval;
  o.setImmediate = vSetImmediate;
  o.clearTimeout = vClear;
  o.clearInterval = vClear;
  o.clearImmediate = vClear;
}
vSetTimeout[require('util').promisify.custom] = (ms, value, opts) => timersPromises.setTimeout(ms, value, opts);
vSetImmediate[require('util').promisify.custom] = (value, opts) => timersPromises.setImmediate(value, opts);

function abortable(signal, start) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) { reject(abortError(signal)); return; }
    let cancel = null;
    const onAbort = () => { if (cancel) cancel(); reject(abortError(signal)); };
    if (signal) signal.addEventListener('abort', onAbort, { once: true });
    cancel = start((v) => { if (signal) signal.removeEventListener('abort', onAbort); resolve(v); });
  });
}
function abortError(signal) {
  const e = new Error('The operation was aborted');
  e.name = 'AbortError'; e.code = 'ABORT_ERR'; e.cause = signal && signal.reason;
  return e;
}
timersPromises.setTimeout = function setTimeout(ms, value, opts = {}) {
  return abortable(opts.signal, (done) => { const t = vSetTimeout(done, ms, value); return () => clearT(t); });
};
timersPromises.setImmediate = function setImmediate(value, opts = {}) {
  return abortable(opts.signal, (done) => { const t = vSetImmediate(done, value); return () => clearT(t); });
};
timersPromises.setInterval = async function* setInterval(ms, value, opts = {}) {
  for (;;) { yield await timersPromises.setTimeout(ms, value, opts); }
};
if (timersPromises.scheduler) {
  timersPromises.scheduler.wait = (ms, opts) => timersPromises.setTimeout(ms, undefined, opts);
  timersPromises.scheduler.yield = () => timersPromises.setImmediate();
}
AbortSignal.timeout = function timeout(ms) {
  const c = new AbortController();
  vSetTimeout(() => {
    const e = new Error('The operation was aborted due to timeout');
    e.name = 'TimeoutError'; e.code = 23;
    c.abort(e);
  }, ms).unref();
  return c.signal;
};

// ---- sockets --------------------------------------------------------------
// A FakeSocket's bytes go to the simulated network: each write becomes an
// outgoing "write" in the step's report; bytes the Go side delivers are
// pushed as data. connect, error and close come from the simulation.
class FakeSocket extends stream.Duplex {
  constructor(opts = {}) {
    super({ allowHalfOpen: !!opts.allowHalfOpen, decodeStrings: true });
    this.id = S.nextSock++;
    this.gen = S.generation;
    this.connecting = false;
    this.pendingWrites = [];
    this._idleMs = 0;
    this._idleTimer = null;
    this.remoteAddress = undefined;
    this.remotePort = undefined;
    this.remoteFamily = 'IPv4';
    this.localAddress = '127.0.0.1';
    this.localPort = 40000 + this.id;
    this.bytesWritten = 0;
    this.bytesRead = 0;
    this.encrypted = undefined;
    S.sockets.set(this.id, this);
  }
  connect(...args) {
    let opts = args[0];
    let cb = args[args.length - 1];
    if (typeof opts !== 'object' || opts === null) opts = { port: args[0], host: typeof args[1] === 'string' ? args[1] : undefined };
    if (typeof cb !== 'function') cb = null;
    if (opts.path) throw new Error('locksim: a Unix socket path (' + opts.path + ') is not in the simulated network; connect to a node by host and port ("m1", 6379)');
    const host = opts.host || 'localhost';
    const port = Number(opts.port || 0);
    this.connecting = true;
    this.remoteAddress = host;
    this.remotePort = port;
    if (cb) this.once('connect', cb);
    S.out.push({ op: 'connect', sock: this.id, host, port });
    return this;
  }
  _onConnected() {
    this.connecting = false;
    const w = this.pendingWrites; this.pendingWrites = [];
    for (const [chunk, cb] of w) this._send(chunk, cb);
    this._touch();
    this.emit('connect');
    this.emit('ready');
  }
  _send(chunk, cb) {
    // A copy: the caller may reuse its buffer once the write's callback ran.
    S.out.push({ op: 'write', sock: this.id, buf: Buffer.from(chunk) });
    this.bytesWritten += chunk.length;
    this._touch();
    cb();
  }
  _write(chunk, enc, cb) {
    if (this.connecting) { this.pendingWrites.push([chunk, cb]); return; }
    this._send(chunk, cb);
  }
  _writev(chunks, cb) {
    const all = Buffer.concat(chunks.map((c) => c.chunk));
    this._write(all, 'buffer', cb);
  }
  _final(cb) { S.out.push({ op: 'close', sock: this.id }); cb(); }
  _read() {}
  _destroy(err, cb) {
    this._clearIdle();
    if (S.sockets.get(this.id) === this) {
      S.sockets.delete(this.id);
      if (!this._remoteGone) S.out.push({ op: 'close', sock: this.id });
    }
    cb(err);
  }
  _deliver(buf) {
    this.bytesRead += buf.length;
    this._touch();
    this.push(buf);
  }
  _touch() {
    if (this._idleTimer) this._idleTimer.refresh();
  }
  _clearIdle() { if (this._idleTimer) { clearT(this._idleTimer); this._idleTimer = null; } }
  setTimeout(ms, cb) {
    this._clearIdle();
    this._idleMs = ms;
    if (cb) { if (ms === 0) this.removeListener('timeout', cb); else this.once('timeout', cb); }
    if (ms > 0) this._idleTimer = vSetTimeout(() => { this._idleTimer = null; this.emit('timeout'); }, ms);
    return this;
  }
  setNoDelay() { return this; }
  setKeepAlive() { return this; }
  ref() { return this; }
  unref() { return this; }
  address() { return { address: this.localAddress, family: 'IPv4', port: this.localPort }; }
  get readyState() { return this.connecting ? 'opening' : (this.destroyed ? 'closed' : 'open'); }
}

function fakeConnect(...args) {
  let opts = args[0];
  if (typeof opts !== 'object' || opts === null) opts = { port: args[0], host: typeof args[1] === 'string' ? args[1] : undefined };
  const s = new FakeSocket(opts);
  return s.connect(...args);
}
net.connect = fakeConnect;
net.createConnection = fakeConnect;
net.Socket = FakeSocket;
net.Stream = FakeSocket;
tls.connect = function connect(...args) {
  // TLS is not simulated: the bytes go in the clear, which the simulated
  // nodes speak; the socket says it is encrypted so clients go on.
  const s = fakeConnect(...args);
  s.encrypted = true;
  s.authorized = true;
  s.once('connect', () => s.emit('secureConnect'));
  return s;
};

// ---- DNS: names are not resolved, the simulated network routes them ------
function dnsRefused(name) {
  const e = new Error('locksim: DNS is not simulated (lookup of ' + name + '): connect by the node\'s name ("m1") and net.connect routes it');
  e.code = 'ENOTFOUND';
  return e;
}
for (const fn of ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname', 'resolveMx', 'resolveNs', 'resolveSrv', 'resolveTxt', 'reverse']) {
  dns[fn] = function (name, ...rest) {
    const cb = rest[rest.length - 1];
    if (typeof cb === 'function') { process.nextTick(cb, dnsRefused(name)); return undefined; }
    throw dnsRefused(name);
  };
  if (dns.promises && dns.promises[fn]) dns.promises[fn] = async (name) => { throw dnsRefused(name); };
}

// ---- refused: native add-ons, worker threads -------------------------------
process.dlopen = function dlopen(_m, file) {
  throw new Error('locksim: native add-ons are refused (' + file + '): a native module can read time, randomness or sockets the simulation does not control; use a pure-JavaScript build');
};
const wt = require('worker_threads');
wt.Worker = function Worker() {
  throw new Error('locksim: worker threads are refused: a second thread runs outside the simulation\'s single step loop, so the run would not be deterministic');
};

// ESM imports of builtins ("import { setTimeout } from 'timers'") see the
// replaced functions.
Module.syncBuiltinESMExports();

// ---- the step engine, used by host.cjs ------------------------------------
// reset starts a new incarnation: every timer, immediate and socket of the
// previous one is forgotten (its callbacks never run), the clock and the
// generator are set.
function reset(seed, nowNs) {
  S.generation++;
  for (const s of S.sockets.values()) { s._remoteGone = true; }
  S.sockets.clear();
  S.timers = []; S.immediates = []; S.out = [];
  S.nowNs = nowNs; S.startNs = nowNs;
  S.rng = makeRng(seed);
}

// runnable takes the next callback to run now: due timers first (by due
// time, then creation order), then immediates; null when none is runnable.
function takeRunnable() {
  let best = null;
  for (const t of S.timers) {
    if (t.at <= S.nowNs && (best === null || t.at < best.at || (t.at === best.at && t.seq < best.seq))) best = t;
  }
  if (best) {
    if (best.repeat) { best.at = S.nowNs + best.delayNs; best.seq = ++S.seq; } else removeTimer(best);
    return best;
  }
  if (S.immediates.length) return S.immediates.shift();
  return null;
}

function nextTimer() {
  let n = -1;
  for (const t of S.timers) if (n < 0 || t.at < n) n = t.at;
  return n;
}

function deliver(ev) {
  const s = S.sockets.get(ev.sock);
  if (!s) return;
  switch (ev.op) {
    case 'connected': s._onConnected(); break;
    case 'data': s._deliver(ev.buf); break;
    case 'error': {
      s._remoteGone = true;
      const e = new Error(ev.err || 'connection reset');
      e.code = ev.code || 'ECONNRESET';
      e.syscall = ev.code === 'ECONNREFUSED' ? 'connect' : 'read';
      s.destroy(e);
      break;
    }
    case 'eof': s._remoteGone = true; s.push(null); break;
    default: throw new Error('locksim bridge: unknown socket event ' + ev.op);
  }
}

module.exports = { S, reset, takeRunnable, nextTimer, deliver, realSetImmediate: real.setImmediate, FakeSocket };
