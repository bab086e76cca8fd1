//go:build faults

package faults

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Enabled reports whether this binary was built with -tags faults.
const Enabled = true

type rule struct {
	nth    int
	action string
}

var (
	once  sync.Once
	mu    sync.Mutex
	rules map[string]rule // guarded by mu after once
	seen  map[string]int  // guarded by mu
)

func load() {
	rules = map[string]rule{}
	seen = map[string]int{}
	for _, item := range strings.Split(os.Getenv("HERMES_FAULTS"), ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		r := rule{nth: 1, action: "crash"}
		if name, act, ok := strings.Cut(item, ":"); ok {
			item, r.action = name, act
		}
		if name, n, ok := strings.Cut(item, "@"); ok {
			item = name
			if v, err := strconv.Atoi(n); err == nil && v > 0 {
				r.nth = v
			}
		}
		rules[item] = r
	}
}

// Hit acts when point is reached for the configured Nth time.
func Hit(point string) {
	once.Do(load)
	mu.Lock()
	r, ok := rules[point]
	if ok {
		seen[point]++
		ok = seen[point] == r.nth
	}
	mu.Unlock()
	if !ok {
		return
	}
	switch r.action {
	case "hang":
		select {}
	default:
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}
