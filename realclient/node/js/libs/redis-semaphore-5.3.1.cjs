'use strict';
// redis-semaphore 5.3.1's Mutex (npm alias redis-semaphore-5.3.1): the
// fix of issue #175 (PR #177), a refresh of an expired key fails and calls
// onLockLost.
module.exports = require('./redis-semaphore.cjs').make('redis-semaphore-5.3.1');
