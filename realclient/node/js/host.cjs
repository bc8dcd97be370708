'use strict';
// locksim's Node.js host: `node --require bridge.cjs host.cjs <module>`.
// It loads the user's lock module once, then serves steps over the bridge
// pipe (fd 3 in, fd 4 out; each message a 4-byte big-endian length and a
// body): one event in (a call, bytes on a socket, a connect outcome, the
// clock reaching a timer), the process runs until nothing is runnable,
// one report out (what it wrote, calls finished, its next timer). An
// event's body is JSON, except bytes on a socket ('B', the time, the
// socket and the raw bytes); a report's body is a list of tagged records
// (encodeReport), so the hot path carries raw bytes, neither JSON nor
// base64 (node.go decodes both).

const fs = require('fs');
const path = require('path');
const B = require('./bridge.cjs');

const IN = 3;
const OUT = 4;
const MAX_CALLBACKS = Number(process.env.LOCKSIM_NODE_MAX_CALLBACKS || 200000);
const MAX_OUT_BYTES = Number(process.env.LOCKSIM_NODE_MAX_BYTES || 16 << 20);
const WANT_RESOURCES = process.env.LOCKSIM_NODE_RESOURCES === '1';

// The pipe's bytes are read into one buffer: a message (its length and
// JSON) usually arrives in one read, so a step costs one read, not two.
let inBuf = Buffer.alloc(64 << 10);
let inStart = 0;
let inEnd = 0;

// fill reads more bytes from the pipe; false when the Go side is gone.
function fill() {
  if (inStart > 0 && inStart === inEnd) { inStart = 0; inEnd = 0; }
  if (inEnd === inBuf.length) {
    const bigger = Buffer.alloc(inStart > 0 ? inBuf.length : inBuf.length * 2);
    inBuf.copy(bigger, 0, inStart, inEnd);
    inEnd -= inStart; inStart = 0; inBuf = bigger;
  }
  for (;;) {
    let k;
    try {
      k = fs.readSync(IN, inBuf, inEnd, inBuf.length - inEnd, null);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      throw e;
    }
    if (k === 0) return false; // the Go side is gone
    inEnd += k;
    return true;
  }
}

function readMsg() {
  while (inEnd - inStart < 4) if (!fill()) return null;
  const n = inBuf.readUInt32BE(inStart);
  while (inEnd - inStart < 4 + n) if (!fill()) return null;
  const at = inStart + 4;
  inStart += 4 + n;
  if (inBuf[at] === 0x42) { // 'B': float64 now, uint32 socket, the bytes
    return { op: 'data', now: inBuf.readDoubleBE(at + 1), sock: inBuf.readUInt32BE(at + 9), buf: Buffer.from(inBuf.subarray(at + 13, at + n)) };
  }
  return JSON.parse(inBuf.toString('utf8', at, at + n));
}

// encodeReport turns a report into tagged records, in this order:
// Y ready (uint16 length, Node's version), F fatal (uint32 length, text),
// then the step's outputs in the order they happened: C connect (uint32
// socket, uint32 port, uint16 length, host), W write (uint32 socket,
// uint32 length, bytes), X close (uint32 socket); D a finished call
// (encodeDone), N the next timer (float64 ns, -1: none), U the lock's
// until() (float64), R the active resources (uint32 length, JSON).
function encodeReport(o) {
  const parts = [];
  const str = (tag, text, wide) => {
    const b = Buffer.from(text, 'utf8');
    const h = Buffer.allocUnsafe(wide ? 5 : 3);
    h[0] = tag;
    if (wide) h.writeUInt32BE(b.length, 1); else h.writeUInt16BE(b.length, 1);
    parts.push(h, b);
  };
  if (o.ready) str(0x59, o.node, false);
  if (o.fatal) str(0x46, o.fatal, true);
  for (const x of o.out || []) {
    if (x.op === 'write') {
      const h = Buffer.allocUnsafe(9);
      h[0] = 0x57; h.writeUInt32BE(x.sock, 1); h.writeUInt32BE(x.buf.length, 5);
      parts.push(h, x.buf);
    } else if (x.op === 'connect') {
      const host = Buffer.from(String(x.host), 'utf8');
      const h = Buffer.allocUnsafe(11);
      h[0] = 0x43; h.writeUInt32BE(x.sock, 1); h.writeUInt32BE(x.port >>> 0, 5); h.writeUInt16BE(host.length, 9);
      parts.push(h, host);
    } else if (x.op === 'close') {
      const h = Buffer.allocUnsafe(5);
      h[0] = 0x58; h.writeUInt32BE(x.sock, 1);
      parts.push(h);
    }
  }
  for (const d of o.done || []) parts.push(encodeDone(d));
  if (o.next !== undefined) { const h = Buffer.allocUnsafe(9); h[0] = 0x4e; h.writeDoubleBE(o.next, 1); parts.push(h); }
  if (o.u !== undefined) { const h = Buffer.allocUnsafe(9); h[0] = 0x55; h.writeDoubleBE(o.u, 1); parts.push(h); }
  if (o.resources) str(0x52, JSON.stringify(o.resources), true);
  return parts;
}

// encodeDone encodes a finished call: D, uint32 id, a flags byte (1 ok,
// 2 a token, 4 an until, 8 caps), then the token and the until (float64
// each, when flagged), the caps (a byte: 1 extend, 2 until, 4 token) and,
// when not ok, the error (uint32 length, text). A token or until that is
// not a finite number is left out, as JSON said null for it.
function encodeDone(d) {
  const hasToken = d.token !== undefined && Number.isFinite(d.token);
  const hasUntil = d.until !== undefined && Number.isFinite(d.until);
  const err = d.ok ? null : Buffer.from(String(d.err), 'utf8');
  const b = Buffer.allocUnsafe(6 + (hasToken ? 8 : 0) + (hasUntil ? 8 : 0) + (d.caps ? 1 : 0) + (err ? 4 + err.length : 0));
  b[0] = 0x44;
  b.writeUInt32BE(d.id >>> 0, 1);
  b[5] = (d.ok ? 1 : 0) | (hasToken ? 2 : 0) | (hasUntil ? 4 : 0) | (d.caps ? 8 : 0);
  let at = 6;
  if (hasToken) { b.writeDoubleBE(d.token, at); at += 8; }
  if (hasUntil) { b.writeDoubleBE(d.until, at); at += 8; }
  if (d.caps) { b[at++] = (d.caps.includes('extend') ? 1 : 0) | (d.caps.includes('until') ? 2 : 0) | (d.caps.includes('token') ? 4 : 0); }
  if (err) { b.writeUInt32BE(err.length, at); err.copy(b, at + 4); }
  return b;
}

function writeMsg(o) {
  const parts = encodeReport(o);
  let n = 0;
  for (const p of parts) n += p.length;
  const all = Buffer.allocUnsafe(4 + n);
  all.writeUInt32BE(n, 0);
  let at = 4;
  for (const p of parts) { p.copy(all, at); at += p.length; }
  let off = 0;
  while (off < all.length) {
    try {
      off += fs.writeSync(OUT, all, off, all.length - off);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      throw e;
    }
  }
}

let mod = null;
let lock = null;
let done = [];
let fatal = null;
let callbacks = 0;
let outBytes = 0;

function fail(what, e) {
  if (fatal) return;
  fatal = what + ': ' + (e && e.stack ? e.stack.split('\n').slice(0, 4).join(' | ') : String(e));
}
process.on('uncaughtException', (e) => fail('uncaught exception', e));
process.on('unhandledRejection', (e) => fail('unhandled promise rejection', e));

function errText(e) {
  if (e == null) return 'error';
  const m = e.message || String(e);
  return (e.name && e.name !== 'Error' ? e.name + ': ' : '') + m;
}

function finish(id, p, caps) {
  Promise.resolve(p).then((v) => {
    const r = { id, ok: true };
    if (lock && id > 0) {
      if (typeof lock.token === 'function') { const t = lock.token(); if (t != null) r.token = Number(t); }
      if (typeof lock.until === 'function') {
        const a = askUntil();
        untilPure = a.pure;
        if (a.err) throw a.err;
        if (a.v != null) r.until = Number(a.v);
      }
    }
    if (caps && lock) r.caps = ['extend', 'until', 'token'].filter((k) => typeof lock[k] === 'function');
    done.push(r);
  }, (e) => { done.push({ id, ok: false, err: errText(e) }); });
}

function env(m) {
  const hosts = [];
  for (let i = 0; i < m.masters; i++) hosts.push({ host: 'm' + (i + 1), port: 6379 });
  return {
    key: m.key,
    ttl: m.ttl,
    waitMs: m.wait,
    client: m.client,
    hosts,
    // The ioredis options every client of a run needs (docs/node.md).
    redisOptions(i, extra) {
      return Object.assign({
        host: hosts[i].host,
        port: hosts[i].port,
        enableReadyCheck: false, // the nodes do not answer INFO (their counters are miniredis's)
        enableOfflineQueue: true,
        maxRetriesPerRequest: 1,
        connectTimeout: 1000,
        lazyConnect: false,
      }, extra || {});
    },
  };
}

// A lock whose until() reads neither the clock nor the random generator
// and does nothing (no write, timer, immediate, socket) returns what the
// process's state says, and that state changes only in a step: so once a
// call showed it to be such a question, until() is asked at the end of
// every step and its answer sent with the report (u), and the Go side
// answers the caller's Until() from it without a round trip. An until()
// that reads the clock (Date.now() + ...) is asked over the pipe each time,
// as the clock moves between steps.
let untilPure = false;

function probe() {
  const S = B.S;
  return [S.reads, S.out.length, S.timers.length, S.seq, S.immediates.length, S.nextSock, S.nextId];
}

function same(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// askUntil calls until() and says whether it was a pure question.
function askUntil() {
  const before = probe();
  let v;
  try { v = lock.until(); } catch (e) { return { pure: false, err: e }; }
  // A number only: an until() that answers null or undefined leaves the
  // last answer standing on the Go side, which a report cannot say.
  return { v, pure: typeof v === 'number' && same(before, probe()) };
}

function handle(m) {
  B.S.nowNs = m.now;
  switch (m.op) {
    case 'setup':
      B.reset(m.seed, m.now);
      lock = null; done = []; fatal = null; callbacks = 0; outBytes = 0; untilPure = false;
      try {
        finish(m.id, Promise.resolve(mod.setup(env(m))).then((l) => {
          if (!l || typeof l.acquire !== 'function' || typeof l.release !== 'function') {
            throw new Error('setup must return an object with acquire() and release() (docs/node.md)');
          }
          lock = l;
        }), true);
      } catch (e) { done.push({ id: m.id, ok: false, err: errText(e) }); }
      break;
    case 'call': {
      if (!lock) { done.push({ id: m.id, ok: false, err: 'no lock: setup has not finished' }); break; }
      const f = lock[m.fn];
      if (typeof f !== 'function') { done.push({ id: m.id, ok: false, err: 'the lock has no ' + m.fn + '()' }); break; }
      if (m.fn === 'until') {
        const a = askUntil();
        untilPure = a.pure;
        if (a.err) { done.push({ id: m.id, ok: false, err: errText(a.err) }); break; }
        finish(m.id, a.v);
        break;
      }
      try { finish(m.id, f.call(lock, { waitMs: m.wait || 0 })); } catch (e) { done.push({ id: m.id, ok: false, err: errText(e) }); }
      break;
    }
    case 'time':
      break;
    case 'connected': case 'data': case 'error': case 'eof':
      B.deliver(m);
      break;
    default:
      fail('bridge', new Error('unknown op ' + m.op));
  }
}

function report(active) {
  let u;
  if (untilPure && lock && !fatal) {
    const a = askUntil();
    untilPure = a.pure;
    if (a.pure) u = a.v;
  }
  const out = B.S.out; B.S.out = [];
  for (const o of out) if (o.buf) outBytes += o.buf.length;
  const r = { out, done, next: B.nextTimer() };
  if (Number.isFinite(u)) r.u = u; // as JSON did: NaN and Infinity are no answer
  done = [];
  if (outBytes > MAX_OUT_BYTES) fail('limit', new Error('the process wrote more than ' + MAX_OUT_BYTES + ' bytes in one run (LOCKSIM_NODE_MAX_BYTES)'));
  // Nothing but the bridge may be active between steps (the bridge's
  // pipe is used synchronously, so nothing at all): a real timer, socket
  // or DNS request would complete on the wall clock's schedule. File
  // reads (a module loaded by import()) are waited for by loop before the
  // report, so they are never active here.
  if (active.length && !fatal) fail('a real resource outside the simulation', new Error(active.join(', ') + ' active between steps (a socket, timer or DNS request the bridge does not replace): its completion would follow the wall clock'));
  if (fatal) r.fatal = fatal;
  if (WANT_RESOURCES) r.resources = active;
  writeMsg(r);
}

let steps = 0;
let fsSpins = 0;
const MAX_FS_SPINS = 10000000;
function fsBusy(active) {
  return active.some((r) => r.startsWith('FSReq') || r === 'FileHandle' || r === 'FileHandleCloseReq' || r === 'CloseReq' || r === 'StatWatcher');
}
function loop() {
  for (;;) {
    const t = fatal ? null : B.takeRunnable();
    if (t) {
      if (++callbacks > MAX_CALLBACKS) {
        fail('limit', new Error('the process ran more than ' + MAX_CALLBACKS + ' timer and immediate callbacks in one run without the lock finishing (a spin: LOCKSIM_NODE_MAX_CALLBACKS)'));
        continue;
      }
      try { t.fn(...t.args); } catch (e) { fail('uncaught exception in a timer', e); }
      B.realSetImmediate(loop); // microtasks and nextTicks run first
      return;
    }
    // A file read (import() of a module, fs.readFile) is the host's
    // input, not an event: wait for it in real time before the step ends,
    // no virtual time passing.
    const active = process.getActiveResourcesInfo();
    if (!fatal && fsBusy(active)) {
      if (++fsSpins > MAX_FS_SPINS) fail('limit', new Error('a file operation did not finish in ' + MAX_FS_SPINS + ' turns'));
      else { B.realSetImmediate(loop); return; }
    }
    fsSpins = 0;
    if (steps > 0) report(active);
    steps++;
    const m = readMsg();
    if (m === null) process.exit(0);
    handle(m);
    B.realSetImmediate(loop);
    return;
  }
}

async function main() {
  const file = process.argv[2];
  if (!file) { console.error('usage: node --require bridge.cjs host.cjs <lock module>'); process.exit(2); }
  const abs = path.resolve(file);
  try {
    mod = abs.endsWith('.mjs') ? await import(require('url').pathToFileURL(abs)) : require(abs);
  } catch (e) {
    writeMsg({ fatal: 'loading ' + file + ': ' + errText(e) });
    process.exit(1);
  }
  if (mod && typeof mod.setup !== 'function' && mod.default && typeof mod.default.setup === 'function') mod = mod.default;
  if (!mod || typeof mod.setup !== 'function') {
    writeMsg({ fatal: file + ' exports no setup(env) function (docs/node.md)' });
    process.exit(1);
  }
  writeMsg({ ready: true, node: process.version });
  B.realSetImmediate(loop);
}
main();
