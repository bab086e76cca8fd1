package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Namespace prefixes every gateway metric.
const Namespace = "hermes"

// Token kinds of hermes_model_tokens_total.
const (
	TokensPrompt     = "prompt"
	TokensCompletion = "completion"
)

// Metrics owns the registry and the instruments. Its methods are safe for
// concurrent use; the zero value is not usable (use New), but a nil
// *Metrics is a no-op observer.
type Metrics struct {
	reg *prometheus.Registry

	turnDuration  *prometheus.HistogramVec // labels: outcome
	modelDuration *prometheus.HistogramVec // labels: outcome
	modelTTFT     prometheus.Histogram
	tokens        *prometheus.CounterVec   // labels: kind
	toolDuration  *prometheus.HistogramVec // labels: tool, outcome
	promptPending *prometheus.GaugeVec     // labels: kind
	promptWait    *prometheus.HistogramVec // labels: kind, outcome
}

// Buckets, in seconds. Turns and prompt waits span seconds to many minutes
// (a human answers); model requests and first tokens span tens of
// milliseconds to minutes; tool calls from a millisecond (file reads) to
// minutes (builds).
var (
	turnBuckets   = []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800}
	modelBuckets  = []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}
	toolBuckets   = []float64{0.001, 0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300}
	promptBuckets = []float64{1, 5, 15, 30, 60, 120, 300, 900, 1800, 3600}
)

// New builds the registry: the instruments, the Go runtime and process
// collectors, and the scrape-time gauges of src (nil funcs are left out).
func New(src Sources) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.turnDuration = prometheus.NewHistogramVec(histogramOpts("turn_duration_seconds",
		"Duration of executed turns (claim to settle), by outcome (completed, failed, interrupted).", turnBuckets), []string{"outcome"})
	m.modelDuration = prometheus.NewHistogramVec(histogramOpts("model_request_duration_seconds",
		"Latency of chat completion requests to the model endpoint, whole response, by outcome (ok, error).", modelBuckets), []string{"outcome"})
	m.modelTTFT = prometheus.NewHistogram(histogramOpts("model_time_to_first_token_seconds",
		"Time from sending a streamed model request to its first text or reasoning delta.", modelBuckets))
	m.tokens = prometheus.NewCounterVec(prometheus.CounterOpts(opts("model_tokens_total",
		"Tokens the model endpoint reported in usage, by kind (prompt = in, completion = out).")), []string{"kind"})
	m.toolDuration = prometheus.NewHistogramVec(histogramOpts("tool_call_duration_seconds",
		"Duration of tool calls, by tool (built-in name, or mcp) and outcome (ok, error = an error result the model sees, failed = interrupted or internal failure).", toolBuckets), []string{"tool", "outcome"})
	m.promptPending = prometheus.NewGaugeVec(prometheus.GaugeOpts(opts("approvals_pending",
		"Approval and clarify prompts waiting for an answer, by kind (approval, file, escalation, clarify).")), []string{"kind"})
	m.promptWait = prometheus.NewHistogramVec(histogramOpts("approval_wait_seconds",
		"How long prompts waited, by kind and outcome (answered, timeout, interrupted).", promptBuckets), []string{"kind", "outcome"})
	for _, k := range []string{TokensPrompt, TokensCompletion} {
		m.tokens.WithLabelValues(k) // present at 0 from the start
	}
	m.reg.MustRegister(
		m.turnDuration, m.modelDuration, m.modelTTFT, m.tokens, m.toolDuration,
		m.promptPending, m.promptWait,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		newScrapeCollector(src),
	)
	return m
}

// opts names an instrument of the gateway's namespace.
func opts(name, help string) prometheus.Opts {
	return prometheus.Opts{Namespace: Namespace, Name: name, Help: help}
}

// histogramOpts names a histogram of the gateway's namespace.
func histogramOpts(name, help string, buckets []float64) prometheus.HistogramOpts {
	return prometheus.HistogramOpts{Namespace: Namespace, Name: name, Help: help, Buckets: buckets}
}

// Registry is the registry the handler serves (for tests and additions).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// TurnDone records one settled turn.
func (m *Metrics) TurnDone(outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.turnDuration.WithLabelValues(outcome).Observe(d.Seconds())
}

// ModelRequest records one chat completion request: its outcome ("ok" or
// "error"), its latency, the time to its first delta (ttft < 0: none, e.g.
// not streamed), and the tokens its usage reported (0 when it reported
// none).
func (m *Metrics) ModelRequest(outcome string, d, ttft time.Duration, promptTokens, completionTokens int) {
	if m == nil {
		return
	}
	m.modelDuration.WithLabelValues(outcome).Observe(d.Seconds())
	if ttft >= 0 {
		m.modelTTFT.Observe(ttft.Seconds())
	}
	if promptTokens > 0 {
		m.tokens.WithLabelValues(TokensPrompt).Add(float64(promptTokens))
	}
	if completionTokens > 0 {
		m.tokens.WithLabelValues(TokensCompletion).Add(float64(completionTokens))
	}
}

// ToolDone records one tool call. tool must already be a built-in tool name
// or "mcp" (the caller reduces it; see the package doc).
func (m *Metrics) ToolDone(tool, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.toolDuration.WithLabelValues(tool, outcome).Observe(d.Seconds())
}

// PromptOpened counts a prompt of kind as pending.
func (m *Metrics) PromptOpened(kind string) {
	if m == nil {
		return
	}
	m.promptPending.WithLabelValues(kind).Inc()
}

// PromptClosed ends a pending prompt of kind after wait, with outcome
// answered, timeout or interrupted.
func (m *Metrics) PromptClosed(kind, outcome string, wait time.Duration) {
	if m == nil {
		return
	}
	m.promptPending.WithLabelValues(kind).Dec()
	m.promptWait.WithLabelValues(kind, outcome).Observe(wait.Seconds())
}
