package model

import "testing"

// wait-accept cannot ask for more acknowledgements than WAIT waits for.
func TestWaitAcceptBound(t *testing.T) {
	s := Spec{Design: WaitReplica, Options: Options{WaitReplicas: 1, WaitAccept: 2}}
	_, err := Run(s, 1)
	if want := "wait-accept 2: give 1 to wait-replicas (1)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
