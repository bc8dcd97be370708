package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"

	"strings"

	"locksim/engine"
)

const mergeUsage = `merge SHARD.json... [--format text|json|markdown] [-o FILE] [--save FILE]

Puts a sharded check back together. Give it the JSON of every shard (check
--shard i/n or --shard auto, with --format json); a pattern such as
'results/shard-*.json' is expanded here too, for engines that run no
shell. It checks that the files are the shards of one check, each once
(same design, flags, runs, seed and invariants; every index 0..n-1), and
prints what the unsharded check prints, byte for byte: the same counts,
the same first failure, shrunk again and saved to --save, the same exit
code: 0 nothing counted broke, 1 a violation, 2 bad input, shards that do
not fit together, or a run that stopped with an error. A campaign of a Go
design cannot be re-run from its files: merge it from Go (engine.Merge).
It refuses shards written by another simulator than its own (another
fingerprint: locksim version prints it) or with no fingerprint, shards
with another config_hash, a file past 16 GiB or with a value past 16 MiB,
and -o or --save naming one of its inputs or each other.`

func cmdMerge(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("merge", mergeUsage, stdout)
	format := fs.String("format", "text", "output format: text, json (locksim.check/v1), markdown or html")
	out := fs.String("o", "", "write the summary to this file instead of stdout")
	save := fs.String("save", defaultSave, "where to save the minimal failing case")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if err := checkFormat("merge", *format); err != nil {
		return exitUsage, err
	}
	if fs.NArg() == 0 {
		return exitUsage, usagef("give the JSON of every shard, e.g. locksim merge shard-*.json")
	}
	var paths []string
	for _, a := range fs.Args() {
		ps, err := expand(a)
		if err != nil {
			return exitUsage, err
		}
		paths = append(paths, ps...)
	}
	var ins []namedPath
	for _, p := range paths {
		ins = append(ins, namedPath{"an input", p})
	}
	if err := distinctOutputs([]namedPath{{"-o", *out}, {"--save", *save}}, ins...); err != nil {
		return exitUsage, err
	}
	if err := checkWritable(namedPath{"-o", *out}, namedPath{"--save", *save}); err != nil {
		return exitUsage, err
	}
	var shards []*engine.Shard
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return exitUsage, usagef("%v", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Size() > engine.MaxShardBytes {
			return exitUsage, usagef("%s is %d bytes: a shard's JSON is at most %d (limits: shard-bytes); split the check into more shards", p, st.Size(), int64(engine.MaxShardBytes))
		}
		s, err := engine.OpenShard(p, bufio.NewReader(f))
		if err != nil {
			return exitUsage, usagef("%v", err)
		}
		shards = append(shards, s)
	}
	m, err := engine.Merge(shards...)
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	sum, err := openSummary("merge", *format, *out, *save, stdout, m.Config)
	if err != nil {
		return exitUsage, err
	}
	m.Config.Each = sum.each()
	res, err := m.Finish()
	if err != nil {
		sum.abort()
		return exitUsage, usagef("%v", err)
	}
	return sum.finish(res, stdout, stderr)
}

// expand returns the file a names, or the files its pattern matches when
// no file has that name.
func expand(a string) ([]string, error) {
	if _, err := os.Stat(a); err == nil || !strings.ContainsAny(a, "*?[") {
		return []string{a}, nil
	}
	ps, err := filepath.Glob(a)
	if err != nil {
		return nil, usagef("bad pattern %q: %v", a, err)
	}
	if len(ps) == 0 {
		return nil, usagef("no file matches %s", a)
	}
	return ps, nil
}
