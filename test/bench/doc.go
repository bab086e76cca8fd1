// Package bench holds the gateway's end-to-end benchmarks: durable
// prompt.submit against a raw SQLite insert+commit measured in the same run,
// session.create, ticket+upgrade+ping, a full create+turn cycle against the
// fake model, and cold start to ready with a large history.
//
// Everything runs in process against daemon.Run on a temp home on the real
// filesystem (never tmpfs: the numbers are fsync-bound). Figures are ratios
// against a baseline measured in the same run, plus latency percentiles
// reported with b.ReportMetric; nothing here asserts on time. See README.md
// for how to run them and the figures measured on the reference machine.
package bench
