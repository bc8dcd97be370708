// Runs locksim calls on the wasm build through the lab's own runner.js,
// as the browser's worker does, and prints their results as JSON.
// Usage: node node-run.js SITE_DIR WASM_FILE CALLS.json
"use strict";
const fs = require("fs");
const path = require("path");
const [site, wasmFile, callsFile] = process.argv.slice(2);
if (!globalThis.crypto) globalThis.crypto = require("crypto").webcrypto; // Node 18
require(path.resolve(site, "wasm_exec.js"));
require(path.resolve(site, "runner.js"));
const calls = JSON.parse(fs.readFileSync(callsFile, "utf8"));
(async () => {
  const module = await WebAssembly.compile(fs.readFileSync(wasmFile));
  const results = [];
  for (const c of calls) {
    results.push(await globalThis.locksimLab.run(module, c.args, c.files || {}));
  }
  process.stdout.write(JSON.stringify(results));
})().catch((e) => {
  console.error(e);
  process.exit(3);
});
