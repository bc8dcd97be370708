// locksim lab worker: fetches the gzipped wasm build of locksim once,
// inflates it with DecompressionStream, and runs one locksim call at a
// time on it, so the page stays responsive.
"use strict";
importScripts("wasm_exec.js", "runner.js");

var modulePromise = fetch("locksim.wasm.gz").then(function (r) {
  if (!r.ok) throw new Error("locksim.wasm.gz: HTTP " + r.status);
  return r.arrayBuffer();
}).then(function (buf) {
  var head = new Uint8Array(buf, 0, 2);
  if (head[0] !== 0x1f || head[1] !== 0x8b) return buf; // a server inflated it already
  var stream = new Blob([buf]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer();
}).then(function (bytes) {
  return WebAssembly.compile(bytes);
});

var queue = Promise.resolve();

onmessage = function (e) {
  var msg = e.data;
  queue = queue.then(function () {
    return modulePromise.then(function (module) {
      return self.locksimLab.run(module, msg.args, msg.files, function (text) {
        postMessage({ id: msg.id, stderr: text });
      });
    }).then(function (result) {
      postMessage({ id: msg.id, result: result });
    }, function (err) {
      postMessage({ id: msg.id, error: String(err && err.stack || err) });
    });
  });
};
