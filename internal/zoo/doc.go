// Package zoo is the mutant zoo: designs with one safety mechanism
// removed, each paired with its correct twin and the faults under which
// the twin is safe, and the tests that measure locksim.Check's
// bug-finding power on them. It sits above the root package (its table is
// Check's options) and is imported by nothing; make test runs its tests,
// make bench its table.
//
// Files: doc.go (this); pairs.go (the pairs: mutant, zoo, zooShortRuns,
// evictTopology); race.go (the same-instant race pairs: raceZoo, raceOpts,
// writerIgnoresReaders); mutants.go (the mutant designs); zoo_test.go
// (TestMutantZoo, TestExhaustiveTellsTheZooApart, runZoo, fakeTB);
// race_test.go (TestSameInstantRaceNeedsAReorder,
// TestExhaustivePreemptionsFindTheRace); checklog_field_test.go
// (TestFieldJudgementsRoundTrip: the field mutants through check-log);
// bench_table_test.go (TestBenchTable -benchtable, make bench's table, and
// the run benchmarks BenchmarkCheckRun and BenchmarkStandardRun*);
// bench_catch_test.go (runs to the first catch per pair,
// TestFirstCatchCounts). The table's CPU time is internal/cputime's.
package zoo
