// locksim lab page: builds locksim command lines from the form, runs them
// in the worker (the wasm build of the real simulator), and shows the
// output: the verdict, why the lease broke, the history step by step and
// the HTML report's timeline.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var worker = new Worker("worker.js");
  var pending = new Map();
  var nextId = 1;
  var lesson = null;
  var history = [], inViolation = new Set(), step = 0;

  worker.onmessage = function (e) {
    var m = e.data, p = pending.get(m.id);
    if (!p) return;
    if (m.stderr !== undefined) { if (p.onStderr) p.onStderr(m.stderr); return; }
    pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve(m.result);
  };
  worker.onerror = function (e) { status("error", "The simulator's worker failed: " + e.message); };

  // call runs `locksim args...` in the worker with files visible to it.
  function call(args, files, onStderr) {
    return new Promise(function (resolve, reject) {
      var id = nextId++;
      pending.set(id, { resolve: resolve, reject: reject, onStderr: onStderr });
      worker.postMessage({ id: id, args: args, files: files || {} });
    });
  }

  // From the console: locksimCall(["run", "gc-pause", "--seed", "2"]) runs
  // any locksim command line in the worker; a promise of {code, stdout,
  // stderr, written}.
  window.locksimCall = function (args, files) { return call(args, files); };

  function status(state, text) { $("status").dataset.state = state; $("status").textContent = text; }

  // The form's state: everything a run needs (a share link encodes it).
  var fields = ["scenario", "design", "fencing", "invariants", "seed", "runs", "acquire", "release", "renew"];
  function state() {
    var s = {};
    fields.forEach(function (f) { s[f] = $(f).value; });
    if (lesson) s.lesson = lesson.id;
    return s;
  }
  function apply(s) {
    fields.forEach(function (f) { if (s[f] !== undefined) $(f).value = s[f]; });
    $("lua").hidden = $("design").value !== "lua";
  }

  function scenarioByID(id) {
    return LOCKSIM_SCENARIOS.filter(function (s) { return s.ID === id; })[0];
  }

  var SCENARIO = "/lab/scenario.txt";
  function files(s) {
    var f = {};
    f[SCENARIO] = s.scenario;
    if (s.design === "lua") {
      f["/lab/acquire.lua"] = s.acquire;
      f["/lab/release.lua"] = s.release;
      if (s.renew.trim()) f["/lab/renew.lua"] = s.renew;
    }
    return f;
  }
  function designArgs(s, forCheck) {
    if (s.design === "lua") {
      var a = ["--acquire", "/lab/acquire.lua", "--release", "/lab/release.lua"];
      if (s.renew.trim()) a.push("--renew", "/lab/renew.lua");
      return a;
    }
    if (s.design) return ["--design", s.design];
    if (forCheck) { // check needs a design: the scenario file's own
      var m = /^design\s+(\S+)/m.exec(s.scenario);
      return m ? ["--design", m[1]] : [];
    }
    return [];
  }
  function common(s) {
    var a = [];
    if (s.fencing) a.push("--fencing", s.fencing);
    if (s.invariants.trim()) a.push("--invariants", s.invariants.trim());
    return a;
  }
  function runArgs(s, format, seed) {
    return ["run", SCENARIO].concat(designArgs(s, false), common(s), ["--seed", String(seed || s.seed), "--format", format]);
  }

  function verdictLine(code, what) {
    return code === 0 ? what + ": nothing broke (exit 0)" : code === 1 ? what + ": a violation was found (exit 1)" : what + ": no verdict (exit " + code + ")";
  }
  function showVerdict(r, what) {
    $("verdict").dataset.code = String(r.code);
    $("verdict").textContent = verdictLine(r.code, what) + (r.code > 1 ? ": " + r.stderr.trim() : "");
  }

  function busy(on) {
    ["run", "check", "exhaustive", "lesson-check"].forEach(function (id) { $(id).disabled = on; });
  }

  function doRun() {
    var s = state();
    busy(true);
    $("args").textContent = "locksim " + runArgs(s, "text").join(" ");
    return Promise.all([call(runArgs(s, "text"), files(s)), call(runArgs(s, "json"), files(s)), call(runArgs(s, "html"), files(s))]).then(function (rs) {
      var text = rs[0], json = rs[1], html = rs[2];
      showVerdict(text, "run");
      $("text").textContent = text.stdout + text.stderr;
      showWhy(json);
      if (html.code <= 1) {
        $("timeline").srcdoc = html.stdout;
        $("timeline").hidden = false;
      } else {
        $("timeline").hidden = true;
      }
      busy(false);
      return text;
    }, function (e) { busy(false); throw e; });
  }

  function showWhy(json) {
    var why = $("why");
    why.textContent = "";
    $("steps").hidden = true;
    if (json.code > 1) return;
    var d = JSON.parse(json.stdout);
    history = d.history || [];
    inViolation = new Set();
    (d.violations || []).forEach(function (v) { (v.events || []).forEach(function (e) { inViolation.add(e); }); });
    var h = document.createElement("h3");
    h.textContent = (d.violations || []).length ? "Why the lease broke" : "Nothing broke";
    why.appendChild(h);
    var ul = document.createElement("ul");
    (d.groups || []).forEach(function (g) {
      var li = document.createElement("li");
      li.className = "cause";
      li.textContent = g.invariant + ": " + g.cause;
      ul.appendChild(li);
    });
    (d.violations || []).forEach(function (v) {
      var li = document.createElement("li");
      li.className = "violation";
      li.textContent = v.invariant + ": " + v.explanation;
      ul.appendChild(li);
    });
    why.appendChild(ul);
    step = 0;
    $("steps").hidden = history.length === 0;
    showStep();
  }

  function showStep() {
    if (!history.length) return;
    step = Math.max(0, Math.min(step, history.length - 1));
    var ev = history[step];
    $("step-pos").textContent = "event " + (step + 1) + " of " + history.length + " at " + (ev.at_ns / 1e9).toFixed(6) + "s";
    $("step-event").textContent = JSON.stringify(ev, null, 1);
    $("step-event").className = inViolation.has(ev.seq) ? "in-violation" : "";
  }

  function progress(text) {
    var m = /(\d+)\/(\d+)/.exec(text);
    if (m) {
      $("progress").max = Number(m[2]);
      $("progress").value = Number(m[1]);
    }
    var line = text.trim().split("\n").pop();
    if (line) $("progress-text").textContent = line;
  }

  function doCheck(exhaustive) {
    var s = state();
    var args = ["check", "--scenario", SCENARIO].concat(designArgs(s, true), common(s), ["--progress"]);
    args = args.concat(exhaustive ? ["--exhaustive"] : ["--runs", s.runs, "--seed", s.seed]);
    busy(true);
    $("progress").hidden = false;
    $("progress").removeAttribute("value");
    $("progress-text").textContent = "running…";
    $("args").textContent = "locksim " + args.join(" ");
    return call(args, files(s), progress).then(function (r) {
      busy(false);
      $("progress").max = 1;
      $("progress").value = 1;
      showVerdict(r, exhaustive ? "exhaustive" : "check");
      $("text").textContent = r.stdout + r.stderr;
      $("text-details").open = true;
      return r;
    }, function (e) { busy(false); throw e; });
  }

  // A lesson's check: the student's run on seeds 1 to 3 must break nothing.
  function checkLesson() {
    var s = state(), v = $("lesson-verdict");
    v.dataset.verdict = "";
    v.textContent = "Checking…";
    busy(true);
    var runs = [1, 2, 3].map(function (seed) { return call(runArgs(s, "text", seed), files(s)); });
    return Promise.all(runs).then(function (rs) {
      busy(false);
      var bad = rs.filter(function (r) { return r.code > 1; })[0];
      if (bad) {
        v.dataset.verdict = "error";
        v.textContent = "No verdict: the simulator refused the run: " + bad.stderr.trim();
        return;
      }
      var broken = [];
      rs.forEach(function (r) {
        r.stdout.split("\n").forEach(function (l) {
          var m = /^\s+(\S+)\s+BROKEN/.exec(l);
          if (m && broken.indexOf(m[1]) < 0) broken.push(m[1]);
        });
      });
      if (rs.every(function (r) { return r.code === 0; })) {
        v.dataset.verdict = "fixed";
        v.textContent = "Fixed: the scenario breaks nothing on seeds 1, 2 and 3. Now try check (random faults) to see what else can break it.";
      } else {
        v.dataset.verdict = "broken";
        v.textContent = "Not fixed yet: still broken: " + broken.join(", ") + ". Run it and read why.";
      }
    }, function (e) { busy(false); throw e; });
  }

  function startLesson(l, keep) {
    lesson = l;
    $("lesson").hidden = false;
    $("lesson-title").textContent = l.title;
    $("lesson-story").innerHTML = l.story;
    $("lesson-question").textContent = l.question;
    $("lesson-verdict").textContent = "";
    $("lesson-verdict").dataset.verdict = "";
    if (keep) return;
    var sc = scenarioByID(l.setup.scenario);
    $("scenario-pick").value = l.setup.scenario;
    apply({ scenario: sc.Source, design: l.setup.design || "", fencing: l.setup.fencing || "", invariants: l.setup.invariants || "",
      seed: "1", acquire: l.setup.acquire || "", release: l.setup.release || "", renew: l.setup.renew || "" });
  }

  function encode(s) {
    var bytes = new TextEncoder().encode(JSON.stringify(s)), bin = "";
    bytes.forEach(function (b) { bin += String.fromCharCode(b); });
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function decode(t) {
    var bin = atob(t.replace(/-/g, "+").replace(/_/g, "/"));
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return JSON.parse(new TextDecoder().decode(bytes));
  }

  function fail(e) {
    status("error", "Error: " + e.message);
    busy(false);
  }

  // Wiring.
  LOCKSIM_SCENARIOS.forEach(function (s) {
    var o = document.createElement("option");
    o.value = s.ID;
    o.textContent = s.ID + ": " + s.Title;
    $("scenario-pick").appendChild(o);
  });
  $("scenario-pick").onchange = function () { $("scenario").value = scenarioByID(this.value).Source; };
  $("design").onchange = function () { $("lua").hidden = this.value !== "lua"; };
  LOCKSIM_LESSONS.forEach(function (l) {
    var li = document.createElement("li"), a = document.createElement("a");
    a.href = "#lesson=" + l.id;
    a.textContent = l.title.replace(/^\d+\. /, "");
    li.appendChild(a);
    $("lesson-list").appendChild(li);
  });
  $("fault-kind").onchange = function () { $("fault-line").value = this.value; };
  $("fault-line").value = $("fault-kind").value;
  $("fault-add").onclick = function () {
    $("scenario").value = $("scenario").value.replace(/\n?(----\n[\s\S]*)?$/, function (tail) {
      return "\nfault " + $("fault-line").value.trim() + "\n" + tail.replace(/^\n/, "");
    });
  };
  $("fault-clear").onclick = function () { $("scenario").value = $("scenario").value.replace(/^fault .*\n/gm, ""); };
  $("ttl-set").onclick = function () {
    var t = $("ttl").value.trim();
    if (!t) return;
    var sc = $("scenario").value;
    $("scenario").value = /^ttl .*$/m.test(sc) ? sc.replace(/^ttl .*$/m, "ttl " + t) : sc.replace(/^(name .*)$/m, "$1\nttl " + t);
  };
  // The watchdog's period: the scenario's `option renew-every=D` line.
  $("renew-set").onclick = function () {
    var t = $("renew-every").value.trim(), sc = $("scenario").value;
    if (!t) return;
    if (/^option .*\brenew-every=\S+/m.test(sc)) sc = sc.replace(/^(option .*\brenew-every=)\S+/m, "$1" + t);
    else sc = sc.replace(/^(ttl .*)$/m, "$1\noption renew-every=" + t);
    if (!/renew-every=/.test(sc)) sc = sc.replace(/^(name .*)$/m, "$1\noption renew-every=" + t);
    $("scenario").value = sc;
  };
  $("run").onclick = function () { doRun().catch(fail); };
  $("check").onclick = function () { doCheck(false).catch(fail); };
  $("exhaustive").onclick = function () { doCheck(true).catch(fail); };
  $("lesson-check").onclick = function () { checkLesson().catch(fail); };
  $("lesson-reset").onclick = function () { if (lesson) startLesson(lesson, false); };
  $("share").onclick = function () {
    var url = location.href.replace(/#.*$/, "") + "#s=" + encode(state());
    $("share-link").value = url;
    window.history.replaceState(null, "", url);
  };
  $("step-first").onclick = function () { step = 0; showStep(); };
  $("step-prev").onclick = function () { step--; showStep(); };
  $("step-next").onclick = function () { step++; showStep(); };
  $("step-violation").onclick = function () {
    for (var i = step + 1; i < history.length; i++) if (inViolation.has(history[i].seq)) { step = i; break; }
    showStep();
  };

  function route() {
    var h = location.hash;
    if (h.indexOf("#lesson=") === 0) {
      var l = LOCKSIM_LESSONS.filter(function (x) { return x.id === h.slice(8); })[0];
      if (l) startLesson(l, false);
      return false;
    }
    if (h.indexOf("#s=") === 0) {
      var s = decode(h.slice(3));
      var l2 = LOCKSIM_LESSONS.filter(function (x) { return x.id === s.lesson; })[0];
      if (l2) startLesson(l2, true);
      apply(s);
      return true; // a shared run opens run
    }
    return false;
  }
  window.addEventListener("hashchange", function () { if (route()) doRun().catch(fail); });

  // Start: the designs come from the simulator's own list.
  $("scenario-pick").value = "gc-pause";
  $("scenario").value = scenarioByID("gc-pause").Source;
  call(["list"], {}).then(function (r) {
    var lines = r.stdout.split("\n"), on = false;
    lines.forEach(function (l) {
      if (/^DESIGNS/.test(l)) { on = true; return; }
      if (on && !l.trim()) { on = false; return; }
      var m = on && /^\s+(\S+)\s+(.*)$/.exec(l);
      if (!m) return;
      var o = document.createElement("option");
      o.value = m[1];
      o.textContent = m[1] === "lua" ? "lua: your own scripts (below)" : m[1] + ": " + m[2];
      $("design").appendChild(o);
    });
    var autorun = route();
    busy(false);
    status("ready", "The simulator is ready (locksim compiled to WebAssembly, running in a worker).");
    document.body.dataset.ready = "1";
    if (autorun) return doRun();
  }).catch(fail);
})();
