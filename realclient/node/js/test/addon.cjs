'use strict';
// A module that loads a native add-on.
exports.setup = () => { process.dlopen({ exports: {} }, '/nonexistent/lock.node'); };
