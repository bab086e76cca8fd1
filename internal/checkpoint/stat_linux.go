package checkpoint

import (
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"
)

// statter stats the files of one work tree by directory: each directory is
// opened once and its files are stat'ed relative to it, so the kernel
// resolves one path component per file instead of the whole path.
type statter struct {
	root string
	dirs map[string]int // relative directory → O_PATH descriptor, -1 when it could not be opened
}

func newStatter(root string) *statter { return &statter{root: root, dirs: map[string]int{}} }

func (s *statter) close() {
	for _, fd := range s.dirs {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

func (s *statter) dir(rel string) int {
	if fd, ok := s.dirs[rel]; ok {
		return fd
	}
	fd, err := unix.Open(s.root+"/"+rel, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		fd = -1
	}
	s.dirs[rel] = fd
	return fd
}

// match says whether the file at the relative path p still has the stat
// data an index entry recorded, comparing what git compares on Linux
// (ie_match_stat with core.trustctime and core.checkStat=default): the type
// and executable bit, mtime and ctime with nanoseconds, inode, owner and
// size, each truncated to 32 bits as the index stores them. A path that is
// gone, or that cannot be stat'ed, does not match (git looks at it). ok is
// false when the answer is unknown.
func (s *statter) match(p string, sd statData) (same, ok bool) {
	dir, base := path.Split(p)
	var st unix.Stat_t
	if dir == "" {
		if err := unix.Fstatat(unix.AT_FDCWD, s.root+"/"+base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return false, true
		}
	} else {
		fd := s.dir(dir[:len(dir)-1])
		if fd < 0 {
			return false, true
		}
		if err := unix.Fstatat(fd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return false, true
		}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		want := uint32(0o100644)
		if st.Mode&0o100 != 0 {
			want = 0o100755
		}
		if sd.mode != want {
			return false, true
		}
	case unix.S_IFLNK:
		if sd.mode != 0o120000 {
			return false, true
		}
	default:
		return false, true
	}
	return sd.mtimeSec == uint32(st.Mtim.Sec) && sd.mtimeNsec == uint32(st.Mtim.Nsec) &&
		sd.ctimeSec == uint32(st.Ctim.Sec) && sd.ctimeNsec == uint32(st.Ctim.Nsec) &&
		sd.ino == uint32(st.Ino) && sd.uid == st.Uid && sd.gid == st.Gid &&
		sd.size == uint32(st.Size), true
}

// mtimeOf is the modification time of the index file, against which git
// tells a racily clean entry.
func mtimeOf(fi os.FileInfo) (stamp, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}, false
	}
	return stamp{sec: uint32(st.Mtim.Sec), nsec: uint32(st.Mtim.Nsec)}, true
}
