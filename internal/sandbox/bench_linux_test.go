package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// benchExeEnv names a hermes binary to measure as the helper besides the
// test binary (`go build -o /tmp/h ./cmd/hermes`): its package init runs
// before main reaches MaybeHelper.
const benchExeEnv = "HERMES_SANDBOX_BENCH_EXE"

// BenchmarkSandboxSetup runs `true` at each level and reports the
// latency's p50 and p99: what the sandbox adds to every command is the
// difference from "off".
func BenchmarkSandboxSetup(b *testing.B) {
	cases := append(levels(b), testLevel{"off", New(testExe(b), ModeOff)})
	if exe := os.Getenv(benchExeEnv); exe != "" {
		cases = append(cases, testLevel{"full-" + filepath.Base(exe), New(exe, ModeStrict)})
	}
	cwd := filepath.Join(baseDir(b), "cwd")
	mkdir(b, cwd)
	for _, lv := range cases {
		for _, network := range []bool{false, true} {
			benchSetup(b, lv, cwd, network)
		}
	}
}

func benchSetup(b *testing.B, lv testLevel, cwd string, network bool) {
	name := lv.name
	if network {
		name += "-net"
	}
	b.Run(name, func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			start := time.Now()
			cmd, err := lv.l.Command(context.Background(), Policy{Cwd: cwd, Network: network}, nil, "/bin/true")
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	})
}
