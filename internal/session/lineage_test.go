package session

import (
	"slices"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestAdvance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := built(t, e, `{"request_id":"r"}`).Receipt
	later := now.Add(time.Hour)
	a := r.Advance("c1", later)
	b := a.Advance("c2", later.Add(time.Hour))
	c := a.Advance("c3", later) // sibling from the same value: must not share b's backing array
	switch {
	case r.Lineage != nil || r.Entry.SessionID != r.SessionID:
		t.Fatalf("Advance modified its receiver: %+v", r)
	case !slices.Equal(a.Lineage, []string{r.SessionID, "c1"}) || a.Entry.SessionID != "c1":
		t.Fatalf("first advance: %v %s", a.Lineage, a.Entry.SessionID)
	case !slices.Equal(b.Lineage, []string{r.SessionID, "c1", "c2"}) || b.Entry.SessionID != "c2":
		t.Fatalf("second advance: %v", b.Lineage)
	case !slices.Equal(c.Lineage, []string{r.SessionID, "c1", "c3"}) || b.Lineage[2] != "c2":
		t.Fatalf("aliasing: %v %v", b.Lineage, c.Lineage)
	case a.Entry.CreatedAt != r.Entry.CreatedAt || a.Entry.UpdatedAt != Timestamp(later):
		t.Fatalf("timestamps: %+v", a.Entry)
	case a.SessionID != r.SessionID || a.Route != r.Route || a.Entry.SessionKey != r.Route:
		t.Fatalf("identity changed: %+v", a)
	}
	if err := b.Check("prof-1", r.SessionID); err != nil {
		t.Fatal(err)
	}
}

// TestCheckLineage: valid compress/reset chains and every way a lineage
// can fail to describe this session's transcripts.
func TestCheckLineage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := built(t, e, `{"request_id":"r"}`).Receipt
	other := built(t, e, `{"request_id":"other"}`).Receipt
	id, route, who := r.SessionID, r.Route, r.PrincipalID
	// root ─compression→ c1 ─session_reset→ c2 (tip)
	rows := func() map[string]TranscriptRow {
		return map[string]TranscriptRow{
			id:   {ID: id, ChatID: id, UserID: who, SessionKey: route, EndReason: EndCompression},
			"c1": {ID: "c1", ChatID: id, UserID: who, SessionKey: route, ParentSessionID: id, EndReason: EndReset},
			"c2": {ID: "c2", ChatID: id, UserID: who, SessionKey: route, ParentSessionID: "c1", ModelConfig: `{"_reset_from":"c1"}`},
		}
	}
	chain := r.Advance("c1", now).Advance("c2", now)
	tests := []struct {
		name    string
		receipt Receipt
		edit    func(m map[string]TranscriptRow)
		detail  string // "" = valid
	}{
		{name: "compress then reset", receipt: chain},
		{name: "no lineage, root is tip", receipt: r, edit: func(m map[string]TranscriptRow) { m[id] = open(m[id]) }},
		{name: "compression child with other markers", receipt: chain, edit: func(m map[string]TranscriptRow) {
			c := m["c1"]
			c.ModelConfig = `{"temperature":0}`
			m["c1"] = c
		}},
		{name: "root stale without lineage", receipt: r, detail: "has ended"},
		{name: "tip missing", receipt: chain, edit: func(m map[string]TranscriptRow) { delete(m, "c2") }, detail: "missing"},
		{name: "root missing", receipt: chain, edit: func(m map[string]TranscriptRow) { delete(m, id) }, detail: "missing"},
		{name: "row id differs", receipt: chain, edit: func(m map[string]TranscriptRow) { m["c2"] = m["c1"] }, detail: "missing"},
		{name: "unrelated fork", receipt: chain, edit: func(m map[string]TranscriptRow) {
			c := m["c1"]
			c.ParentSessionID = "elsewhere"
			m["c1"] = c
		}, detail: "not parent and child"},
		{name: "branch child", receipt: chain, edit: func(m map[string]TranscriptRow) {
			c := m["c1"]
			c.ModelConfig = `{"_branched_from":"` + id + `"}`
			m["c1"] = c
		}, detail: "not the compression child"},
		{name: "delegate child", receipt: chain, edit: func(m map[string]TranscriptRow) {
			c := m["c1"]
			c.ModelConfig = `{"_delegate_from":"` + id + `"}`
			m["c1"] = c
		}, detail: "not the compression child"},
		{name: "reset child without marker", receipt: chain, edit: func(m map[string]TranscriptRow) {
			c := m["c2"]
			c.ModelConfig = ""
			m["c2"] = c
		}, detail: "not the reset child"},
		{name: "reset marker names another parent", receipt: chain, edit: func(m map[string]TranscriptRow) {
			c := m["c2"]
			c.ModelConfig = `{"_reset_from":"` + id + `"}`
			m["c2"] = c
		}, detail: "not the reset child"},
		{name: "malformed model_config", receipt: chain, edit: func(m map[string]TranscriptRow) {
			c := m["c2"]
			c.ModelConfig = `{"_reset_from":`
			m["c2"] = c
		}, detail: "malformed"},
		{name: "wrong end_reason", receipt: chain, edit: func(m map[string]TranscriptRow) {
			p := m[id]
			p.EndReason = "user_exit"
			m[id] = p
		}, detail: "did not end"},
		{name: "parent not ended", receipt: chain, edit: func(m map[string]TranscriptRow) { m[id] = open(m[id]) }, detail: "did not end"},
		{name: "tip ended by compression", receipt: chain, edit: func(m map[string]TranscriptRow) {
			c := m["c2"]
			c.EndReason = EndCompression
			m["c2"] = c
		}, detail: "has ended"},
		{name: "tip of another principal", receipt: chain, edit: func(m map[string]TranscriptRow) {
			c := m["c2"]
			c.UserID = "uid:1001"
			m["c2"] = c
		}, detail: "another session"},
		{name: "tip on another route", receipt: chain, edit: func(m map[string]TranscriptRow) {
			c := m["c2"]
			c.SessionKey = other.Route
			m["c2"] = c
		}, detail: "another session"},
		{name: "copied receipt onto these rows", receipt: other.Advance("c1", now).Advance("c2", now), edit: func(m map[string]TranscriptRow) {
			m[other.SessionID] = TranscriptRow{ID: other.SessionID, ChatID: other.SessionID, UserID: who, SessionKey: other.Route, EndReason: EndCompression}
			c := m["c1"]
			c.ParentSessionID = other.SessionID
			m["c1"] = c
		}, detail: "another session"},
		{name: "bad shape", receipt: func() Receipt { x := chain; x.Entry.SessionID = "c1"; return x }(), detail: "does not end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := rows()
			if tt.edit != nil {
				tt.edit(m)
			}
			err := CheckLineage(tt.receipt, func(id string) (TranscriptRow, bool) {
				row, ok := m[id]
				return row, ok
			})
			if tt.detail == "" {
				wantErr(t, err, "", "")
				return
			}
			wantErr(t, err, protocol.ReasonStorageUnavailable, tt.detail)
		})
	}
}

func open(row TranscriptRow) TranscriptRow {
	row.EndReason = ""
	return row
}
