'use strict';
// A module that starts a worker thread.
const { Worker } = require('worker_threads');
exports.setup = () => { new Worker('setTimeout(() => {}, 10)', { eval: true }); };
