'use strict';
// redis-semaphore 5.8.0's Mutex (see redis-semaphore.cjs).
module.exports = require('./redis-semaphore.cjs').make('redis-semaphore');
