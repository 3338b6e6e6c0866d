package guard

import "os/user"

// groups are the user's groups, by id and name, as the directory service lists them
// (getgrouplist(3): macOS's getgroups(2) stops at 16).
func groups() ([]string, error) {
	u, err := user.Current()
	if err != nil {
		return nil, err
	}
	ids, err := u.GroupIds()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		out = append(out, id)
		g, err := user.LookupGroupId(id)
		if err != nil {
			if _, unknown := err.(user.UnknownGroupIdError); unknown {
				continue
			}
			return nil, err
		}
		out = append(out, g.Name)
	}
	return out, nil
}
