package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPricingAndTitles(t *testing.T) {
	t.Parallel()
	if d := Defaults(); !d.Titles.Auto || len(d.Pricing) != 0 {
		t.Fatalf("defaults: titles %+v pricing %v; want auto on, no prices", d.Titles, d.Pricing)
	}
	got, err := Load(writeConfig(t, "titles: {auto: false}\npricing:\n  gpt-4.1-mini: {input: 0.4, output: 1.6, cached_input: 0.1}\n  local: {input: 0, output: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cached := 0.1
	want := map[string]Price{"gpt-4.1-mini": {Input: 0.4, Output: 1.6, CachedInput: &cached}, "local": {Output: 2}}
	if d := cmp.Diff(want, got.Pricing); d != "" || got.Titles.Auto {
		t.Errorf("pricing (-want +got)\n%s\ntitles %+v", d, got.Titles)
	}
	bad := []struct{ body, want string }{
		{"pricing: {m: {input: -1}}", "config.yaml: pricing.m.input: want a number in 0..1e+06 (USD per million tokens)"},
		{"pricing: {m: {output: .nan}}", "config.yaml: pricing.m.output: want a number in 0..1e+06 (USD per million tokens)"},
		{"pricing: {m: {cached_input: 2e7}}", "config.yaml: pricing.m.cached_input: want a number in 0..1e+06 (USD per million tokens)"},
		{"pricing: {m: {input: cheap}}", "config.yaml: pricing.m.input: want a non-negative number (USD per million tokens)"},
		{"pricing: [m]", "config.yaml: pricing: want a mapping"},
		{"titles: {auto: sometimes}", "config.yaml: titles.auto: want true or false"},
	}
	for _, b := range bad {
		if _, err := Load(writeConfig(t, b.body)); err == nil || err.Error() != b.want {
			t.Errorf("%s: err = %v\nwant %s", b.body, err, b.want)
		}
	}
}
