package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A write that fails leaves the previous file; one that succeeds replaces
// it; neither leaves a temporary file; a missing directory is created.
func TestWriteIsAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	path := filepath.Join(dir, "out.json")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "old\n"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(path, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); err != boom {
		t.Fatalf("err %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("after a failed write: %q, want the old contents", b)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "new\n")
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("before Commit: %q, want the old contents", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // a no-op after Commit
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("after Commit: %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d files, want only out.json: %v", len(entries), entries)
	}
}

// A link is followed (its target replaced, the link kept); a path that is
// not a regular file (/dev/null, /dev/stdout) is written in place, never
// renamed over.
func TestWriteThroughLinksAndDevices(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.json"), filepath.Join(dir, "link.json")
	os.WriteFile(target, []byte("old\n"), 0o644)
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if err := Write(link, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("the link's target holds %q", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st, err)
	}
	if _, err := os.Stat(os.DevNull); err != nil {
		return
	}
	if err := Write(os.DevNull, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Errorf("%s is now %v (%v)", os.DevNull, st, err)
	}
}

// tmpsOf lists the temporary files next to path.
func tmpsOf(t *testing.T, path string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The temporary files this process left are removed by Cleanup and by the
// next Create of the same path; another process's (a shard sharing the
// directory) are never touched.
func TestCleanupRemovesOnlyOwnTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	foreign := filepath.Join(dir, ".out.json.tmp-4242")
	if err := os.WriteFile(foreign, []byte("another process"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.json")
	f1, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f1, "left half way")
	g, err := Create(other)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tmpsOf(t, path)); n != 2 {
		t.Fatalf("%d temporaries for out.json, want 2 (ours and the foreign one)", n)
	}
	// Writing the same output again removes what this process left for it.
	f2, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f1.tmp.Name()); !os.IsNotExist(err) {
		t.Errorf("the first write's temporary %s survived a second Create of the same path", f1.tmp.Name())
	}
	if _, err := os.Stat(g.tmp.Name()); err != nil {
		t.Errorf("another path's temporary was removed: %v", err)
	}
	removed := Cleanup()
	if len(removed) != 2 {
		t.Errorf("Cleanup removed %v, want the two live temporaries", removed)
	}
	for _, p := range []string{f2.tmp.Name(), g.tmp.Name()} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived Cleanup", p)
		}
	}
	if b, err := os.ReadFile(foreign); err != nil || string(b) != "another process" {
		t.Errorf("the foreign temporary: %q, %v; want it untouched", b, err)
	}
	if len(Cleanup()) != 0 {
		t.Error("a second Cleanup found temporaries")
	}
	// A committed file is no longer tracked.
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if len(Cleanup()) != 0 {
		t.Error("Cleanup found a committed file's temporary")
	}
}
