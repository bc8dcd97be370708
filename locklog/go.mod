module locksim/locklog

go 1.26.8
