package repocheck

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// goTestLine is one `go test` command of a Makefile recipe, split into
// words, with the directory it runs in and its environment prefix.
type goTestLine struct {
	target, text string
	dir          string   // relative to the module root
	env          []string // VAR=value prefixes
	wrapped      bool     // run through $(TESTCPU), which prints each package's CPU time
	args         []string // the words after `go test`
}

// makefileGoTests reads the Makefile's recipes and returns every go test
// command in them: `cd DIR && ...` chains, VAR=value prefixes, the
// $(TESTCPU) wrapper (tools/testcpu: it runs the go test command it is
// given), pipes and trailing comments are understood as sh would.
func makefileGoTests(t *testing.T, path string) []goTestLine {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goTestLine
	target := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "\t") {
			if name, _, ok := strings.Cut(line, ":"); ok && !strings.ContainsAny(name, " =\t#") {
				target = name
			} else if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			} else {
				target = ""
			}
			continue
		}
		if target == "" {
			continue
		}
		recipe := strings.ReplaceAll(strings.TrimSpace(line), "$$", "$")
		recipe = strings.TrimLeft(recipe, "-@")
		dir := "."
		for _, cmd := range strings.Split(recipe, "&&") {
			words := shellWords(cmd)
			if len(words) >= 2 && words[0] == "cd" {
				dir = filepath.Join(dir, words[1])
				continue
			}
			var env []string
			for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
				env, words = append(env, words[0]), words[1:]
			}
			wrapped := len(words) > 0 && words[0] == "$(TESTCPU)"
			if wrapped {
				words = words[1:]
			}
			if len(words) >= 2 && words[0] == "$(GO)" && words[1] == "test" {
				out = append(out, goTestLine{target: target, text: strings.TrimSpace(line), dir: dir, env: env, wrapped: wrapped, args: words[2:]})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shellWords splits one simple sh command into words: quotes are removed,
// a pipe or a comment ends the command.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				j = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case (c == '|' || c == '#' || c == ';') && !inWord:
			return words
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// listCommand turns a go test line into one that only lists what the line
// selects: -run, -bench and -fuzz become -list of the same pattern (the
// one that names what runs), and what only shapes a run that -list does
// not start (-race, -fuzztime, -benchtime, -benchmem, -count, -cpuprofile)
// is dropped, so the check costs compiling, and its result is cached. The
// test binary still parses every flag after the packages and -args, which
// is the point. It returns the new words and the selecting pattern.
func listCommand(args []string) ([]string, string, bool) {
	var run, bench, fuzz string
	var rest []string
	valued := map[string]*string{"-run": &run, "-bench": &bench, "-fuzz": &fuzz}
	drop := map[string]bool{"-race": true, "-benchmem": true}
	dropValued := map[string]bool{"-fuzztime": true, "-benchtime": true, "-count": true, "-cpuprofile": true, "-memprofile": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-args" {
			rest = append(rest, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		if p, ok := valued[name]; ok {
			if !hasVal && i+1 < len(args) {
				val, i = args[i+1], i+1
			}
			*p = val
			continue
		}
		if drop[name] {
			continue
		}
		if dropValued[name] {
			if !hasVal {
				i++
			}
			continue
		}
		rest = append(rest, a)
	}
	pat := run
	switch {
	case fuzz != "":
		pat = fuzz
	case bench != "" && (run == "^$" || run == ""):
		pat = bench
	case pat == "":
		pat = "."
	}
	return append([]string{"test", "-list", pat}, rest...), pat, fuzz != ""
}

// TestMakefileTargetsSelectWhatTheyName: every go test line of every
// Makefile target, run with -list in place of what it selects, exits 0
// (no "flag provided but not defined", no package that does not build,
// no flag after the packages that go test hands to the wrong binary), and
// each name of its pattern (A|B) matches a test, benchmark, fuzz test or
// example of the packages it names; a fuzz line matches exactly one fuzz
// test; and every line sets an explicit -timeout. `make long` once ran the
// root package instead of ./model/ and failed at once on -oracle.runs.
func TestMakefileTargetsSelectWhatTheyName(t *testing.T) {
	lines := makefileGoTests(t, "Makefile")
	targets := map[string]int{}
	for _, l := range lines {
		targets[l.target]++
	}
	for _, want := range []string{"test", "check", "bench", "long", "golden"} {
		if targets[want] == 0 {
			t.Errorf("make %s has no go test line (the parser lost it)", want)
		}
	}
	for _, l := range lines {
		if l.target == "test" && !l.wrapped {
			t.Errorf("make test: %q is not run through $(TESTCPU), so its packages' CPU time is not printed", l.text)
		}
	}
	for _, l := range lines {
		hasTimeout := false
		for _, a := range l.args {
			if a == "-args" {
				break
			}
			hasTimeout = hasTimeout || a == "-timeout" || strings.HasPrefix(a, "-timeout=")
		}
		if !hasTimeout {
			t.Errorf("make %s: %q sets no -timeout (go test's default of 10m kills a slow machine's run)", l.target, l.text)
		}
	}
	if testing.Short() {
		t.Skip("-short: the flags and selections need each line compiled")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	// The distinct list commands run two at a time (most of each is the
	// go command's own start and link); their results are read in order.
	type listed struct {
		l         goTestLine
		args      []string
		pat       string
		fuzz      bool
		out       []byte
		err       error
		completed chan struct{}
	}
	var runs []*listed
	seen := map[string]bool{}
	for _, l := range lines {
		args, pat, fuzz := listCommand(l.args)
		key := l.dir + " " + strings.Join(l.env, " ") + " " + strings.Join(args, " ")
		if seen[key] {
			continue
		}
		seen[key] = true
		runs = append(runs, &listed{l: l, args: args, pat: pat, fuzz: fuzz, completed: make(chan struct{})})
	}
	slots := make(chan struct{}, 2)
	for _, r := range runs {
		go func() {
			slots <- struct{}{}
			defer func() { <-slots; close(r.completed) }()
			cmd := exec.Command(goBin, r.args...)
			cmd.Dir = r.l.dir
			cmd.Env = append(os.Environ(), r.l.env...)
			r.out, r.err = cmd.CombinedOutput()
		}()
	}
	for _, r := range runs {
		<-r.completed
		l, args, pat, fuzz, err := r.l, r.args, r.pat, r.fuzz, r.err
		text := string(r.out)
		if err != nil || strings.Contains(text, "flag provided but not defined") {
			t.Errorf("make %s: %q as `go %s` in %s: %v\n%s", l.target, l.text, strings.Join(args, " "), l.dir, err, text)
			continue
		}
		var names []string
		for _, w := range strings.Split(text, "\n") {
			if w != "" && !strings.ContainsAny(w, " \t") {
				names = append(names, w)
			}
		}
		if fuzz {
			n := 0
			for _, name := range names {
				if strings.HasPrefix(name, "Fuzz") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("make %s: %q: -fuzz %s matches %d fuzz tests, want 1 (go test refuses more)", l.target, l.text, pat, n)
			}
		}
		for _, alt := range strings.Split(pat, "|") {
			alt = strings.TrimSuffix(strings.TrimPrefix(alt, "^"), "$")
			if alt == "" || alt == "." {
				continue
			}
			re, err := regexp.Compile(alt)
			if err != nil {
				t.Errorf("make %s: %q: pattern %q: %v", l.target, l.text, alt, err)
				continue
			}
			found := false
			for _, name := range names {
				found = found || re.MatchString(name)
			}
			if !found {
				t.Errorf("make %s: %q: %q selects nothing in %s", l.target, l.text, alt, strings.Join(args[3:], " "))
			}
		}
	}
}

// The go test lines of the Makefile parse as sh would, and listCommand
// keeps the flags the test binary must parse, after the packages.
func TestMakefileParse(t *testing.T) {
	got := shellWords(`GOMAXPROCS=1 $(GO) test -run '^$' -fuzz "F x" ./a/ | grep -v ok  # note`)
	want := []string{"GOMAXPROCS=1", "$(GO)", "test", "-run", "^$", "-fuzz", "F x", "./a/"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("shellWords = %q, want %q", got, want)
	}
	mk := filepath.Join(t.TempDir(), "Makefile")
	os.WriteFile(mk, []byte("test: toolbin\n\tcd sub && $(TESTCPU) $(GO) test -timeout 5m ./...  # note\n\tGOMAXPROCS=1 $(GO) test -timeout 1m .\n"), 0o644)
	if ls := makefileGoTests(t, mk); len(ls) != 2 || !ls[0].wrapped || ls[0].dir != "sub" || strings.Join(ls[0].args, " ") != "-timeout 5m ./..." || ls[1].wrapped || ls[1].env[0] != "GOMAXPROCS=1" {
		t.Errorf("makefileGoTests = %+v", ls)
	}
	args, pat, fuzz := listCommand([]string{"-run", "X|Y", "-race", "-count=1", "-timeout", "5m", "./model/", "-args", "-oracle.runs=5"})
	if pat != "X|Y" || fuzz || strings.Join(args, " ") != "test -list X|Y -timeout 5m ./model/ -args -oracle.runs=5" {
		t.Errorf("listCommand = %q %q %v", args, pat, fuzz)
	}
	if _, pat, _ := listCommand([]string{"-run", "^$", "-bench", "B", "-benchmem", "./..."}); pat != "B" {
		t.Errorf("a bench line lists %q, want its -bench pattern", pat)
	}
}

// TestMakeGoldenRewritesEveryGolden: every test function of the module
// that compares with a golden file (it calls golden or goldenfile.Check) is
// selected by a `make golden` line for its package, so the target
// regenerates every golden file.
func TestMakeGoldenRewritesEveryGolden(t *testing.T) {
	runs := map[string][]*regexp.Regexp{} // package dir -> the golden lines' -run patterns
	for _, l := range makefileGoTests(t, "Makefile") {
		if l.target != "golden" {
			continue
		}
		if !slices.Contains(l.args, "-rewrite") {
			t.Errorf("make golden: %q does not pass -rewrite", l.text)
		}
		_, pat, _ := listCommand(l.args)
		for _, a := range l.args {
			if strings.HasPrefix(a, "./") {
				runs[filepath.Clean(a)] = append(runs[filepath.Clean(a)], regexp.MustCompile(pat))
			}
		}
	}
	found := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "realclient" || path == "tools" || path == "locklog" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir // other modules, hidden directories
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil || !callsGolden(fn.Body) {
				continue
			}
			found++
			dir := filepath.Dir(path)
			if !slices.ContainsFunc(runs[dir], func(re *regexp.Regexp) bool { return re.MatchString(fn.Name.Name) }) {
				t.Errorf("%s: %s compares with golden files, but no make golden line for ./%s/ selects it", path, fn.Name.Name, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("found no golden test: the scan is broken")
	}
}

// callsGolden reports whether a function body calls golden(...) or
// goldenfile.Check(...).
func callsGolden(body *ast.BlockStmt) bool {
	calls := false
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return !calls
		}
		switch f := c.Fun.(type) {
		case *ast.Ident:
			calls = calls || f.Name == "golden"
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok && x.Name == "goldenfile" && f.Sel.Name == "Check" {
				calls = true
			}
		}
		return !calls
	})
	return calls
}
