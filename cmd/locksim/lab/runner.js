// locksim lab: runs the locksim command line, compiled to WebAssembly
// (GOOS=js GOARCH=wasm, the same Go code as the native binary), once per
// call with a fresh Go instance. The program sees an in-memory file
// system holding only the files given (scenario files, Lua scripts);
// what it writes to stdout and stderr is collected. Used by worker.js in
// the browser and by the native-vs-wasm test under Node.
(function (root) {
  "use strict";
  var enc = new TextEncoder();

  function fsError(code, msg) {
    var e = new Error(code + ": " + msg);
    e.code = code;
    return e;
  }

  function stat(size, dir) {
    return {
      dev: 0, ino: 0, mode: dir ? 0o40755 : 0o100644, nlink: 1, uid: 0, gid: 0, rdev: 0,
      size: size, blksize: 4096, blocks: Math.ceil(size / 512), atimeMs: 0, mtimeMs: 0, ctimeMs: 0,
      isDirectory: function () { return dir; },
    };
  }

  // memFS is the node-style fs object Go's syscall package calls: the
  // files given (path -> text) and any the program writes (a saved case),
  // all in memory. out(fd, bytes) receives fd 1 and 2.
  function memFS(files, out) {
    var data = new Map(), dirs = new Set([".", "/", "/lab"]);
    Object.keys(files).forEach(function (p) { data.set(p, enc.encode(files[p])); });
    var open = new Map();
    var next = 100;
    function ok(cb) { cb(null); }
    var fs = {
      constants: { O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_TRUNC: 512, O_APPEND: 1024, O_EXCL: 128, O_DIRECTORY: 65536 },
      writeSync: function (fd, buf) {
        out(fd, buf);
        return buf.length;
      },
      write: function (fd, buf, offset, length, position, cb) {
        if (fd === 1 || fd === 2) {
          out(fd, buf.subarray(offset, offset + length));
          cb(null, length);
          return;
        }
        var f = open.get(fd);
        if (!f || !f.w) {
          cb(fsError("EBADF", "fd " + fd));
          return;
        }
        var at = position === null || position === undefined ? f.pos : position;
        var old = data.get(f.path), end = Math.max(old.length, at + length);
        var grown = new Uint8Array(end);
        grown.set(old);
        grown.set(buf.subarray(offset, offset + length), at);
        data.set(f.path, grown);
        if (position === null || position === undefined) f.pos = at + length;
        cb(null, length);
      },
      open: function (path, flags, mode, cb) {
        if (dirs.has(path)) {
          var dfd = next++;
          open.set(dfd, { path: path, dir: true, pos: 0 });
          cb(null, dfd);
          return;
        }
        if (!data.has(path)) {
          if (!(flags & 64)) {
            cb(fsError("ENOENT", path));
            return;
          }
          data.set(path, new Uint8Array(0));
        } else if (flags & 64 && flags & 128) {
          cb(fsError("EEXIST", path));
          return;
        } else if (flags & 512) {
          data.set(path, new Uint8Array(0));
        }
        var fd = next++;
        open.set(fd, { path: path, pos: 0, w: (flags & 3) !== 0 });
        cb(null, fd);
      },
      read: function (fd, buf, offset, length, position, cb) {
        var f = open.get(fd);
        if (!f || f.dir) {
          cb(fsError("EBADF", "fd " + fd));
          return;
        }
        var d = data.get(f.path);
        var at = position === null || position === undefined ? f.pos : position;
        var n = Math.max(0, Math.min(length, d.length - at));
        buf.set(d.subarray(at, at + n), offset);
        if (position === null || position === undefined) f.pos += n;
        cb(null, n);
      },
      fstat: function (fd, cb) {
        var f = open.get(fd);
        if (!f) cb(fsError("EBADF", "fd " + fd));
        else cb(null, f.dir ? stat(0, true) : stat(data.get(f.path).length, false));
      },
      stat: function (path, cb) {
        if (dirs.has(path)) cb(null, stat(0, true));
        else if (data.has(path)) cb(null, stat(data.get(path).length, false));
        else cb(fsError("ENOENT", path));
      },
      close: function (fd, cb) {
        open.delete(fd);
        cb(null);
      },
      mkdir: function (path, perm, cb) {
        if (dirs.has(path) || data.has(path)) cb(fsError("EEXIST", path));
        else { dirs.add(path); cb(null); }
      },
      readdir: function (path, cb) {
        var pre = path === "." ? "" : path.replace(/\/$/, "") + "/";
        var names = [];
        data.forEach(function (v, p) { if (p.indexOf(pre) === 0 && p.slice(pre.length).indexOf("/") < 0) names.push(p.slice(pre.length)); });
        cb(null, names);
      },
      rename: function (from, to, cb) {
        if (!data.has(from)) { cb(fsError("ENOENT", from)); return; }
        data.set(to, data.get(from));
        data.delete(from);
        cb(null);
      },
      unlink: function (path, cb) {
        if (!data.delete(path)) cb(fsError("ENOENT", path));
        else cb(null);
      },
      written: function () {
        var w = {};
        data.forEach(function (v, p) { if (!Object.prototype.hasOwnProperty.call(files, p)) w[p] = new TextDecoder().decode(v); });
        return w;
      },
    };
    fs.lstat = fs.stat;
    ["chmod", "chown", "fchmod", "fchown", "fsync", "lchown", "utimes"].forEach(function (n) {
      fs[n] = function () { ok(arguments[arguments.length - 1]); };
    });
    ["ftruncate", "link", "readlink", "rmdir", "symlink", "truncate"].forEach(function (n) {
      fs[n] = function () { arguments[arguments.length - 1](fsError("ENOSYS", n + " is not available in the lab")); };
    });
    return fs;
  }

  // run runs `locksim args...` on the compiled module with files visible
  // and returns a promise of {code, stdout, stderr}. onStderr, if given,
  // sees stderr as it is written (the progress bar).
  function run(module, args, files, onStderr) {
    var outChunks = [], errChunks = [];
    var dec = new TextDecoder();
    var saved = root.fs;
    var mem = memFS(files || {}, function (fd, bytes) {
      var copy = bytes.slice();
      if (fd === 1) outChunks.push(copy);
      else {
        errChunks.push(copy);
        if (onStderr) onStderr(dec.decode(copy));
      }
    });
    root.fs = mem;
    var go = new root.Go();
    go.argv = ["locksim"].concat(args);
    go.env = {};
    var code = null;
    go.exit = function (c) { code = c; };
    function join(chunks) {
      var n = 0;
      chunks.forEach(function (c) { n += c.length; });
      var all = new Uint8Array(n);
      n = 0;
      chunks.forEach(function (c) { all.set(c, n); n += c.length; });
      return new TextDecoder().decode(all);
    }
    return WebAssembly.instantiate(module, go.importObject).then(function (inst) {
      return go.run(inst);
    }).then(function () {
      root.fs = saved;
      return { code: code === null ? 0 : code, stdout: join(outChunks), stderr: join(errChunks), written: mem.written() };
    }, function (e) {
      root.fs = saved;
      throw e;
    });
  }

  root.locksimLab = { run: run, memFS: memFS };
})(typeof self !== "undefined" ? self : globalThis);
