'use strict';
// A module that starts a real child process, which the bridge does not
// replace.
exports.setup = () => {
  require('child_process').spawn('sleep', ['1']);
  return { acquire() {}, release() {} };
};
