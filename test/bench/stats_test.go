package bench

import (
	"slices"
	"testing"
	"time"
)

// latencies collects per-operation durations for percentile reporting. It is
// not safe for concurrent use: concurrent workers keep their own and merge.
type latencies []time.Duration

func (l *latencies) add(d time.Duration) { *l = append(*l, d) }

func (l *latencies) merge(o latencies) { *l = append(*l, o...) }

// q returns the q-quantile (0..1) by the nearest-rank method; 0 when empty.
func (l latencies) q(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// report adds "<prefix>-p50-µs" and "<prefix>-p99-µs".
func (l latencies) report(b *testing.B, prefix string) {
	b.ReportMetric(us(l.q(0.50)), prefix+"-p50-µs")
	b.ReportMetric(us(l.q(0.99)), prefix+"-p99-µs")
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// ratio is a/b, or 0 when b is 0.
func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
