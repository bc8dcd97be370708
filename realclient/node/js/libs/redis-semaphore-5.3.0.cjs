'use strict';
// redis-semaphore 5.3.0's Mutex (npm alias redis-semaphore-5.3.0): its
// refresh script sets the key again when it has expired (issue #175).
module.exports = require('./redis-semaphore.cjs').make('redis-semaphore-5.3.0');
