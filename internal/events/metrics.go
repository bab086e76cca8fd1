package events

// CutOffs is the number of subscriptions cut off with session.replay_gap
// since NewHub (hermes_viewer_cutoffs_total). It only grows.
func (h *Hub) CutOffs() int64 { return h.cutOffs.Load() }
