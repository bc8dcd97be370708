package clock

import (
	"testing"
	"time"
)

func TestPerfectClockIsTrueTime(t *testing.T) {
	c := Perfect()
	for _, tt := range []time.Duration{0, time.Millisecond, 90 * time.Second} {
		if got := c.Mono(tt); got != tt {
			t.Errorf("Mono(%v) = %v, want %v", tt, got, tt)
		}
		if got := c.Wall(tt); !got.Equal(Epoch.Add(tt)) {
			t.Errorf("Wall(%v) = %v", tt, got)
		}
	}
}

func TestDriftRunsFast(t *testing.T) {
	c, err := New(Config{RatePPM: 200_000}) // 20% fast
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Mono(time.Second), 1200*time.Millisecond; got != want {
		t.Errorf("Mono(1s) = %v, want %v", got, want)
	}
	// A 1.2s local interval takes 1s of true time.
	if got, want := c.TrueAfterMono(0, 1200*time.Millisecond), time.Second; got != want {
		t.Errorf("TrueAfterMono = %v, want %v", got, want)
	}
	// A key with a 1s TTL set at true 0 expires at true 1s/1.2.
	got, ok := c.TrueForLocal(0, time.Second, time.Hour)
	if want := 833333334 * time.Nanosecond; !ok || got != want {
		t.Errorf("TrueForLocal = %v %v, want %v", got, ok, want)
	}
}

func TestJumpsMoveWallNotMono(t *testing.T) {
	c, err := New(Config{Offset: 5 * time.Millisecond, Jumps: []Jump{{At: 2 * time.Second, By: -time.Second}, {At: time.Second, By: 10 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ at, local, mono time.Duration }{
		{999 * time.Millisecond, 1004 * time.Millisecond, 999 * time.Millisecond},
		{time.Second, 11005 * time.Millisecond, time.Second},
		{2 * time.Second, 11005 * time.Millisecond, 2 * time.Second},
	}
	for _, tc := range cases {
		if got := c.Local(tc.at); got != tc.local {
			t.Errorf("Local(%v) = %v, want %v", tc.at, got, tc.local)
		}
		if got := c.Mono(tc.at); got != tc.mono {
			t.Errorf("Mono(%v) = %v, want %v", tc.at, got, tc.mono)
		}
	}
	// Wall reaches 5s first at the forward jump.
	if got, ok := c.TrueForLocal(0, 5*time.Second, time.Hour); !ok || got != time.Second {
		t.Errorf("TrueForLocal(5s) = %v %v, want 1s", got, ok)
	}
}

func TestSetRateKeepsReadingsContinuous(t *testing.T) {
	c := Perfect()
	at := 3 * time.Second
	if err := c.SetRatePPM(at, 100_000); err != nil {
		t.Fatal(err)
	}
	if got := c.Mono(at); got != at {
		t.Errorf("Mono at change = %v, want %v", got, at)
	}
	if got, want := c.Mono(at+time.Second), at+1100*time.Millisecond; got != want {
		t.Errorf("Mono 1s after change = %v, want %v", got, want)
	}
	if got, want := c.TrueAfterMono(at, 1100*time.Millisecond), at+time.Second; got != want {
		t.Errorf("TrueAfterMono = %v, want %v", got, want)
	}
}

func TestBadRate(t *testing.T) {
	if _, err := New(Config{RatePPM: 600_000}); err == nil {
		t.Error("New accepted rate_ppm 600000")
	}
	if _, err := New(Config{Jumps: []Jump{{At: -1}}}); err == nil {
		t.Error("New accepted a negative jump time")
	}
}
