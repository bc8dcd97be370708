'use strict';
// The compare-and-delete lock with an until() that answers null: a
// question with no number, which the Go side reads as "no news" (the last
// answer stands), so it is asked over the pipe each time and never sent
// with a report (TestUntilFromTheReport).
const base = require('../locks/setnx.cjs').make({ plainDel: false });

exports.setup = (env) => {
  const l = base.setup(env);
  return { acquire: l.acquire, release: l.release, until() { return null; } };
};
