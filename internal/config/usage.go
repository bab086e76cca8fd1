package config

import (
	"fmt"
	"math"
)

// Price is what one model costs, in US dollars per million tokens.
// CachedInput prices prompt tokens the server read from its prompt cache;
// nil = the Input price.
type Price struct {
	Input       float64  `yaml:"input" want:"a non-negative number (USD per million tokens)"`
	Output      float64  `yaml:"output" want:"a non-negative number (USD per million tokens)"`
	CachedInput *float64 `yaml:"cached_input" want:"a non-negative number (USD per million tokens)"`
}

// Titles configures automatic session titles.
type Titles struct {
	// Auto: after the first completed turn of an untitled session (never a
	// safe_mode one), one small extra request to the session's model asks
	// for a title. The only model request besides turns and compression.
	Auto bool `yaml:"auto"`
}

// maxPrice bounds a price: no model costs a million dollars per million
// tokens, and a bound keeps every cost finite.
const maxPrice = 1e6

// validateUsage checks pricing.*.
func (c Config) validateUsage() error {
	for name, p := range c.Pricing {
		if name == "" || len(name) > 1024 {
			return fmt.Errorf("pricing: want model names of 1..1024 characters")
		}
		fields := []struct {
			key string
			v   *float64
		}{{"input", &p.Input}, {"output", &p.Output}, {"cached_input", p.CachedInput}}
		for _, f := range fields {
			if f.v != nil && (math.IsNaN(*f.v) || *f.v < 0 || *f.v > maxPrice) {
				return fmt.Errorf("pricing.%s.%s: want a number in 0..%g (USD per million tokens)", name, f.key, float64(maxPrice))
			}
		}
	}
	return nil
}
