package harness

import (
	"hash/fnv"
	"math/rand/v2"
)

// CorpusSize is the size of the fuzzers' seed corpus.
const CorpusSize = 16

// Corpus is the seed corpus of locksim.Fuzz and realclient.Fuzz:
// CorpusSize inputs of 64 random bytes from fixed seeds.
func Corpus() [][]byte {
	out := make([][]byte, 0, CorpusSize)
	for i := range uint64(CorpusSize) {
		r := rand.New(rand.NewPCG(i, 0xf022))
		b := make([]byte, 64)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		out = append(out, b)
	}
	return out
}

// FuzzSeed is the run seed of a fuzzer input: its FNV-1a hash.
func FuzzSeed(data []byte) uint64 {
	h := fnv.New64a()
	h.Write(data)
	return h.Sum64()
}
