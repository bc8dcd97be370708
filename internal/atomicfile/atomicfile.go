// Package atomicfile writes files that appear whole or not at all: the
// bytes go to a temporary file in the target's directory, which replaces
// the target by a rename only once everything is written and closed. A
// write that fails, or a process stopped half way, leaves the previous
// file as it was. The temporary files of this process are tracked: Cleanup
// removes them (a signal handler calls it before exiting), and a new
// Create of a path first removes the temporary files this process left
// for it. Files another process created are never touched (concurrent
// shards share a directory); a process killed outright (SIGKILL) may leave
// its temporary file, named .NAME.tmp-*, next to the target.
//
//	f, err := atomicfile.Create("out.json")
//	...write to f...
//	err = f.Commit() // or f.Abort() to keep the old out.json
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/pkg/errors"
)

// File is a file being written; it replaces its path on Commit.
type File struct {
	tmp    *os.File
	path   string
	done   bool
	direct bool // not a regular file (/dev/stdout, a pipe): written in place
}

// live are this process's temporary files not yet committed or removed,
// by the target path they stand for.
var live = struct {
	sync.Mutex
	tmps map[string][]string
}{tmps: map[string][]string{}}

func track(path, tmp string) {
	live.Lock()
	defer live.Unlock()
	live.tmps[path] = append(live.tmps[path], tmp)
}

func untrack(path, tmp string) {
	live.Lock()
	defer live.Unlock()
	ts := live.tmps[path]
	for i, t := range ts {
		if t == tmp {
			live.tmps[path] = append(ts[:i], ts[i+1:]...)
			break
		}
	}
	if len(live.tmps[path]) == 0 {
		delete(live.tmps, path)
	}
}

// removeLeft removes the temporary files this process left for path.
func removeLeft(path string) {
	live.Lock()
	ts := live.tmps[path]
	delete(live.tmps, path)
	live.Unlock()
	for _, t := range ts {
		os.Remove(t)
	}
}

// Cleanup removes every temporary file this process created and has not
// committed or aborted (a signal handler's last act), and returns their
// names. Other files, another process's temporary files included, are
// left alone.
func Cleanup() []string {
	live.Lock()
	var all []string
	for _, ts := range live.tmps {
		all = append(all, ts...)
	}
	clear(live.tmps)
	live.Unlock()
	for _, t := range all {
		os.Remove(t)
	}
	return all
}

// Create starts writing path, creating its directory when it is missing.
// A path that is a link is followed: the file it names is replaced, the
// link kept. A path that exists and is not a regular file (/dev/stdout, a
// named pipe) cannot be replaced by a rename: it is written in place.
func Create(path string) (*File, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
		if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, err
			}
			return &File{tmp: f, path: path, direct: true}, nil
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	removeLeft(path)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	track(path, tmp.Name())
	return &File{tmp: tmp, path: path}, nil
}

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// Commit closes the temporary file and renames it over the path. It
// returns the first error; after an error the path is unchanged.
func (f *File) Commit() error {
	if f.done {
		return errors.Errorf("%s already closed", f.path)
	}
	f.done = true
	if f.direct {
		return f.tmp.Close()
	}
	name := f.tmp.Name()
	err := f.tmp.Chmod(0o644)
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, f.path)
	}
	if err != nil {
		os.Remove(name)
	}
	untrack(f.path, name)
	return err
}

// Abort drops what was written: the path keeps its previous contents (or
// stays absent). It is a no-op after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	if !f.direct {
		os.Remove(f.tmp.Name())
		untrack(f.path, f.tmp.Name())
	}
}

// Write writes path with fn, atomically: on fn's error nothing changes.
func Write(path string, fn func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
