//go:build unix && !darwin

package guard

import (
	"errors"
	"os/user"
	"strconv"
	"syscall"
)

// groups are the groups this process holds, as the kernel gave them at login (getgroups(2), so
// that groups from the directory service count too), each by id and, where the group database
// names it, by name. An id the database does not name is kept as the id; a database that cannot
// be read is an error.
func groups() ([]string, error) {
	ids, err := syscall.Getgroups()
	if err != nil {
		return nil, err
	}
	ids = append(ids, syscall.Getegid())
	var out []string
	seen := map[int]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		gid := strconv.Itoa(id)
		out = append(out, gid)
		g, err := user.LookupGroupId(gid)
		var unknown user.UnknownGroupIdError
		switch {
		case errors.As(err, &unknown):
		case err != nil:
			return nil, err
		default:
			out = append(out, g.Name)
		}
	}
	return out, nil
}
