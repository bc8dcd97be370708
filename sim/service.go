package sim

import (
	"time"

	"locksim/sim/resp"
)

// Service is a non-Redis endpoint, such as the fenced resource. Handle
// runs one request synchronously at its arrival time and returns the reply.
// It must be deterministic and must not block.
type Service interface {
	Handle(sc *ServiceCtx, from string, args []string) resp.Reply
}

// ServiceCtx is what a Service may use while handling a request.
type ServiceCtx struct {
	w    *World
	name string
}

// Now returns the true time; services have perfect clocks.
func (sc *ServiceCtx) Now() time.Duration { return sc.w.now }

// Record appends an event to the history as the service.
func (sc *ServiceCtx) Record(e Event) {
	e.Actor, e.Local = sc.name, sc.w.now
	sc.w.record(&e)
}

type service struct {
	name string
	h    Service
	ctx  ServiceCtx // handed to every Handle call
}
