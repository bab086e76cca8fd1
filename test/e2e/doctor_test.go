package e2e

import (
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/doctor"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
)

// TestDoctorWithRunningGateway: against a home whose gateway runs, the
// listener check finds it through the control socket, and the read-only
// quick_check passes next to the live database.
func TestDoctorWithRunningGateway(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := f.Start()
	checks := doctor.Run(gt.Context(t, wait), doctor.Options{Home: f.Home, MinFreeBytes: 1})
	for _, c := range checks {
		switch c.Name {
		case doctor.CheckListener:
			if !c.OK || !strings.Contains(c.Detail, "a gateway is running") {
				t.Errorf("listener: %+v, want the running gateway (pid %d)", c, d.PID())
			}
		case doctor.CheckDatabase, doctor.CheckHome, doctor.CheckConfig, doctor.CheckModel:
			if !c.OK {
				t.Errorf("%s: %+v, want ok", c.Name, c)
			}
		}
	}
}
