package config

import (
	"errors"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration that config.yaml writes as "10s", "1m30s" or a
// plain number of seconds (10, 0.5).
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

var errDuration = errors.New(`want a duration such as "10s" or a number of seconds`)

// UnmarshalYAML accepts a duration string or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return errDuration
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		secs, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return errDuration
		}
		*d = Duration(secs * float64(time.Second))
		return nil
	case "!!str":
		v, err := time.ParseDuration(n.Value)
		if err != nil {
			return errDuration
		}
		*d = Duration(v)
		return nil
	}
	return errDuration
}

// MarshalYAML writes the duration string form.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }
