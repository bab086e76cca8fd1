package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartupQueriesUsePendingIndex pins the promise that start-up and claim
// costs grow with pending work, not history: every query over admissions by
// status must search the partial index of non-terminal rows, never scan the
// table.
func TestStartupQueriesUsePendingIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	queries := map[string]string{
		"orphans":               sqlOrphans,
		"claim scan":            stmtSQL[sClaimScan],
		"pending admissions":    stmtSQL[sAdmissionsPending],
		"pending brief":         stmtSQL[sAdmissionsPendingBrief],
		"sessions with pending": sqlSessionsWithPending,
		"counts":                sqlCounts,
	}
	for name, q := range queries {
		args := make([]any, strings.Count(q, "?"))
		for i := range args {
			args[i] = "x"
		}
		rows, err := s.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		joined := strings.Join(plan, " | ")
		tableScan := false
		for _, line := range plan { // "SCAN t" alone walks the whole table
			tableScan = tableScan || strings.HasPrefix(line, "SCAN session_admissions") && !strings.Contains(line, "INDEX")
		}
		if tableScan || !strings.Contains(joined, "INDEX session_admissions_pending") {
			t.Errorf("%s: plan %q does not use the pending index", name, joined)
		}
	}
}
