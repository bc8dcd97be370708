package script_test

import (
	"fmt"
	"time"

	"github.com/alicebob/miniredis/v2"

	"locksim/sim/script"
)

func Example() {
	m := miniredis.NewMiniRedis()
	defer m.Close()
	m.Seed(1)
	m.SetTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	m.ClockTTL(true)
	e, err := script.NewEngine(m, script.Options{MaxInstructions: 1000})
	if err != nil {
		panic(err)
	}
	c := e.NewConn()
	release := `if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('DEL',KEYS[1]) else return 0 end`

	fmt.Println(c.Do("SET", "lock", "tok", "NX", "PX", "30000"))
	fmt.Println(c.Do("EVAL", release, "1", "lock", "other"))
	fmt.Println(c.Do("EVAL", release, "1", "lock", "tok"))
	fmt.Println(c.Do("EVAL", "while true do end", "0"))
	// Output:
	// OK
	// (integer) 0
	// (integer) 1
	// (error) ERR Error running script (call to f_694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7): script exceeded the instruction budget of 1000 (limits: max-script-instructions)
}
