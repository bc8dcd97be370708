package realclient

import (
	"maps"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"locksim/model"
)

// Which library code ran: test binaries carry no module list in their
// build info (debug.ReadBuildInfo lists no dependencies), and Go's minimal
// version selection may link a version other than the one a go.mod names,
// so the harness reads it from the code itself. Every go-redis command of
// the package's clients passes its hook (gateHook); there the harness
// walks the caller's stack once per new program counter and records, for
// each frame outside the standard library, locksim and the main module,
// the module and version in the frame's file path
// (".../github.com/go-redsync/redsync/v4@v4.18.1/mutex.go", with or
// without -trimpath). A frame whose file path has no "@version" is a
// replaced module or local code: it is recorded as such, by package.

// moduleSet is one run's linked library modules.
type moduleSet struct {
	mu  sync.Mutex
	set map[string]bool
	// seen holds the program counters already noted in this run: their
	// modules are in set, so a repeated stack costs one lookup per frame.
	seen map[uintptr]struct{}
}

// pcModules caches a program counter's module ("" for none): code does
// not move within a process.
var pcModules sync.Map // uintptr -> string

// note records the modules of the calling goroutine's stack.
func (m *moduleSet) note() {
	var pcs [64]uintptr
	n := runtime.Callers(2, pcs[:])
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil {
		m.seen, m.set = map[uintptr]struct{}{}, map[string]bool{}
	}
	for _, pc := range pcs[:n] {
		if _, ok := m.seen[pc]; ok {
			continue
		}
		m.seen[pc] = struct{}{}
		var s string
		if v, ok := pcModules.Load(pc); ok {
			s = v.(string)
		} else {
			// One frame per pc: an inlined call's module is its
			// caller's pc's first frame, good enough to name a module.
			f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
			s = frameModule(f.Function, f.File)
			pcModules.Store(pc, s)
		}
		if s != "" {
			m.set[s] = true
		}
	}
}

// list is the recorded modules, sorted: "path version", or "package
// (replaced or local: no version in its file path)".
func (m *moduleSet) list() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for s := range m.set {
		out = append(out, s)
	}
	slices.Sort(out)
	// A replaced module's packages: keep the shortest path of each tree.
	var kept []string
	for _, s := range out {
		if p, ok := strings.CutSuffix(s, replacedSuffix); ok && len(kept) > 0 {
			if q, ok := strings.CutSuffix(kept[len(kept)-1], replacedSuffix); ok && strings.HasPrefix(p, q+"/") {
				continue
			}
		}
		kept = append(kept, s)
	}
	return kept
}

const replacedSuffix = " (replaced or local: no version in its file path)"

// mainModule is the main module's path where the build info has it.
var mainModule = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Path
	}
	return ""
})

// frameModule names the module of a frame: "" for the standard library,
// locksim's own packages and the main module.
func frameModule(function, file string) string {
	pkg := funcPackage(function)
	first, _, _ := strings.Cut(pkg, "/")
	if pkg == "" || !strings.Contains(first, ".") {
		return "" // the standard library, locksim, a module without a domain
	}
	if mm := mainModule(); mm != "" && (pkg == mm || strings.HasPrefix(pkg, mm+"/")) {
		return ""
	}
	file = strings.ReplaceAll(file, `\`, "/")
	at := strings.Index(file, "@v")
	if at < 0 {
		return pkg + replacedSuffix
	}
	version, _, _ := strings.Cut(file[at+1:], "/")
	dir := unescapeModPath(file[:at])
	// The module path is the longest tail of dir that the package's path
	// starts with (dir may begin with the module cache's directory).
	for i := 0; i < len(dir); i++ {
		if i > 0 && dir[i-1] != '/' {
			continue
		}
		if mod := dir[i:]; pkg == mod || strings.HasPrefix(pkg, mod+"/") {
			return mod + " " + version
		}
	}
	return pkg + " " + version
}

// funcPackage is the package path of a runtime function name
// ("github.com/a/b/v4.(*Mutex).Lock" -> "github.com/a/b/v4").
func funcPackage(name string) string {
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return ""
	}
	return name[:slash+1+dot]
}

// unescapeModPath undoes the module cache's case encoding ("!b" -> "B").
func unescapeModPath(s string) string {
	if !strings.Contains(s, "!") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '!' && i+1 < len(s) {
			i++
			b.WriteString(strings.ToUpper(s[i : i+1]))
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// noteLinked adds a run's modules to the check's.
func (c *config) noteLinked(r *model.Result) {
	if c.linked == nil {
		c.linked = map[string]bool{}
	}
	for _, m := range r.Modules {
		c.linked[m] = true
	}
}

// linkedLine is the check's modules for its log line: "; linked: ...".
func (c *config) linkedLine() string {
	if len(c.linked) == 0 {
		return ""
	}
	return "; linked: " + strings.Join(slices.Sorted(maps.Keys(c.linked)), ", ")
}

// linkedLine is a failure report's line naming the modules its run linked.
func linkedLine(mods []string) string {
	if len(mods) == 0 {
		return "linked: no library module seen on the clients' stacks\n"
	}
	return "linked: " + strings.Join(mods, ", ") + "\n"
}
