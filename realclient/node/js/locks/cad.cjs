module.exports = require('./setnx.cjs').make({ plainDel: false });
