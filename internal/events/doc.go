// Package events is the per-session fanout hub: it delivers committed session
// events (docs/protocol.md#viewers) to every live viewer of a session, in memory. The journal
// itself is written by the store inside the state transaction; the hub only
// fans out what the caller has committed.
//
// It may import only protocol (the event shape) and must never import store
// or authority: keeping the journal out of the hub is what makes it a pure
// in-memory component with its own goleak tests.
//
// # Delivery semantics
//
//   - Same order for everyone. Every subscription of a session receives the
//     events published to that session in the same order. Commit and Publish
//     run under the session's lock, so the live order is the commit order,
//     which is the journal (seq) order when callers journal inside Commit.
//   - Exact attach. Subscribe runs the caller's snapshot under the same lock
//     and registers the subscription before releasing it: an event committed
//     concurrently is either in the snapshot or in the stream, never both and
//     never neither.
//   - Never blocks the publisher. Each subscription has its own queue,
//     capped at Options.Buffer items and Options.BufferBytes bytes.
//     Consecutive deltas of the same type (message.delta, reasoning.delta)
//     for the same admission are coalesced in the queue by appending their
//     text, so a slow viewer does not grow its item count while text
//     streams; the appended text counts against the byte cap, so a viewer
//     that stopped reading cannot hold a whole stream in memory either.
//   - Cut off, never drop. When a queue would exceed either cap, the hub
//     discards that queue, replaces it with one session.replay_gap event
//     {replay_epoch, latest_seq} and ends the subscription (it is removed from
//     the session). Next returns the gap event, then ErrCutOff. The viewer
//     recovers with session.events.since or a new session.resume; the turn
//     and the other viewers are never slowed. Nothing is ever dropped
//     silently: a viewer either sees every event or is told it missed some.
//   - latest_seq in a gap is the highest seq the hub has published for the
//     session while it held state for it (see Lifetime), including every
//     event of the batch that caused the cut-off. 0 means the hub has seen no
//     journaled event since the state was created; the viewer then learns
//     the latest seq from session.events.since.
//
// # Concurrency model
//
// Locks, in acquisition order:
//
//  1. session.mu — one per session; serializes Commit, Publish, Subscribe
//     and the removal of a subscription; guards the subscriber set, latestSeq
//     and replayEpoch. Held while the caller's fn or snapshot runs (that is
//     the point: a DB transaction commits under it), never while waiting for
//     a subscriber.
//  2. Subscription.mu — guards one queue; held only for slice operations.
//  3. Hub.mu — guards the session map and each state's refs; a leaf lock,
//     never held while acquiring another.
//
// The hub owns no goroutines. Subscribers wake through a one-slot notify
// channel; Close closes a done channel so any Next returns at once.
//
// # Lifetime
//
// A session's state exists while it has a reference: each caller inside
// Commit, Publish, Subscribe or Subscribers holds one from before it waits for
// the lock until after it releases it, and each registered subscription holds
// one until it is closed or cut off. When the count reaches zero the state is
// deleted. Because a waiter holds a reference, two callers of one session can
// never end up on two different states (which would break ordering).
//
// # Invariants
//
//   - Events are shared between subscribers: nobody may mutate an Event or
//     its Payload after publishing it or after receiving it from Next.
//   - A subscription's membership in its session's subscriber set is guarded
//     by session.mu and owns exactly one reference; whoever removes it
//     (Close or a cut-off) releases that reference, once.
//   - After a cut-off the queue holds only the gap event and nothing more is
//     enqueued; after Close the queue is empty and nothing more is enqueued.
package events
