package checkpoint

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// worktree is what changed in the work tree since the shadow index was
// written: what `git add -A` would have to look at.
type worktree struct {
	untracked []string // not ignored, not in the index (`ls-files --others`; a nested repository ends in "/")
	changed   []string // in the index, and gone or not matching its stat data (or racily clean, or a nested repository)
	// exact: changed was found from the index's stat data, so it is every
	// tracked path git add -A could update; otherwise it is git's
	// `ls-files --modified` (deletions not included) and add must look at
	// the whole tree.
	exact bool
	sizes map[string]int64 // size of the regular files among untracked and changed
}

// scan finds what changed: git lists the untracked files (it alone knows
// the ignore rules) while the tracked ones are compared, here, with the
// stat data the index holds, as git itself would. Where the index cannot
// be read here, git lists the modified files too.
func (r *repo) scan(ctx context.Context) (worktree, error) {
	var (
		others []byte
		oerr   error
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		others, oerr = r.git(ctx, nil, "ls-files", "-z", "--others", "--exclude-standard")
	}()
	changed, ok := r.changedByStat()
	<-done
	if oerr != nil {
		return worktree{}, oerr
	}
	w := worktree{untracked: nulSplit(others), changed: changed, exact: ok}
	if !ok {
		out, err := r.git(ctx, nil, "ls-files", "-z", "--modified")
		if err != nil {
			return worktree{}, err
		}
		w.changed = nulSplit(out)
	}
	w.sizes = map[string]int64{}
	for _, p := range slices.Concat(w.untracked, w.changed) {
		if strings.HasSuffix(p, "/") {
			continue
		}
		if fi, err := os.Lstat(r.abs(p)); err == nil && fi.Mode().IsRegular() {
			w.sizes[p] = fi.Size()
		}
	}
	return w, nil
}

// indexEntry is the part of a version 2 or 3 index entry that says whether
// the file changed: the stat data git compares (see stat_linux.go).
type indexEntry struct {
	path string
	stat statData
}

// statData is the stat data of an index entry, each field the low 32 bits.
type statData struct {
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec uint32
	ino, mode, uid, gid, size                uint32
}

const (
	modeGitlink  = 0o160000
	modeTypeMask = 0o170000
)

// changedByStat lists the index entries whose path is gone or whose stat
// data differs from the index's (as git's ie_match_stat sees it), every
// racily clean entry (one not older than the index file, whose content git
// would compare) and every nested repository (git compares its HEAD). It
// fails (false) where it cannot tell: an index it does not know the format
// of, merge stages, extended flags, a system without the stat fields.
// A missing index is empty.
func (r *repo) changedByStat() ([]string, bool) {
	path := r.index()
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, true
	}
	if err != nil {
		return nil, false
	}
	idxMtime, ok := mtimeOf(fi)
	if !ok {
		return nil, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	entries, ok := parseIndex(b)
	if !ok {
		return nil, false
	}
	var (
		mu      sync.Mutex
		changed []string
		wg      sync.WaitGroup
		failed  bool
	)
	workers := min(runtime.GOMAXPROCS(0), 4, 1+len(entries)/2048)
	chunk := (len(entries) + workers - 1) / workers
	for w := range workers {
		part := entries[min(w*chunk, len(entries)):min((w+1)*chunk, len(entries))]
		wg.Go(func() {
			var mine []string
			st := newStatter(r.cwd)
			defer st.close()
			for _, e := range part {
				same, ok := st.match(e.path, e.stat)
				if !ok {
					mu.Lock()
					failed = true
					mu.Unlock()
					return
				}
				racy := e.stat.mtimeSec > idxMtime.sec || (e.stat.mtimeSec == idxMtime.sec && e.stat.mtimeNsec >= idxMtime.nsec)
				if !same || racy || e.stat.mode&modeTypeMask == modeGitlink {
					mine = append(mine, e.path)
				}
			}
			mu.Lock()
			changed = append(changed, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if failed {
		return nil, false
	}
	slices.Sort(changed)
	return changed, true
}

type stamp struct{ sec, nsec uint32 }

// parseIndex reads the entries of a version 2 or 3 index with SHA-1 object
// names. It refuses (false) anything else, and any entry with a merge stage
// or extended flags (intent-to-add, skip-worktree), which a snapshot index
// never has.
func parseIndex(b []byte) ([]indexEntry, bool) {
	const hashLen = 20
	if len(b) < 12+hashLen || string(b[:4]) != "DIRC" {
		return nil, false
	}
	if v := binary.BigEndian.Uint32(b[4:8]); v != 2 && v != 3 {
		return nil, false
	}
	n := int(binary.BigEndian.Uint32(b[8:12]))
	end := len(b) - hashLen // the trailing checksum
	entries := make([]indexEntry, 0, n)
	off := 12
	for range n {
		const fixed = 40 + hashLen + 2 // stat data, object name, flags
		if off+fixed > end {
			return nil, false
		}
		u := func(i int) uint32 { return binary.BigEndian.Uint32(b[off+4*i:]) }
		flags := binary.BigEndian.Uint16(b[off+40+hashLen:])
		if flags&0x3000 != 0 || flags&0x4000 != 0 { // stage, extended
			return nil, false
		}
		nameStart := off + fixed
		nul := nameStart
		for nul < end && b[nul] != 0 {
			nul++
		}
		if nul >= end || nul == nameStart {
			return nil, false
		}
		if l := int(flags & 0xfff); l != 0xfff && l != nul-nameStart {
			return nil, false
		}
		entries = append(entries, indexEntry{
			path: string(b[nameStart:nul]),
			stat: statData{
				ctimeSec: u(0), ctimeNsec: u(1), mtimeSec: u(2), mtimeNsec: u(3),
				ino: u(5), mode: u(6), uid: u(7), gid: u(8), size: u(9),
			},
		})
		// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
		off += (fixed + (nul - nameStart) + 8) &^ 7
	}
	if off > end {
		return nil, false
	}
	return entries, true
}
