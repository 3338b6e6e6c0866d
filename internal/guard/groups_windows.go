package guard

import (
	"strings"
	"syscall"
	"unsafe"
)

// groups are the groups of this process's access token, the ones whoami /groups lists: each by
// its SID and, where Windows names it without asking a domain controller, by name (BUILTIN and
// well-known groups, and the machine's own local groups), as NAME and DOMAIN\NAME. A domain
// group is matched by its SID: naming it could mean a network call in the hook. Groups the
// token holds for deny only (Administrators in a process that is not elevated) do not count.
func groups() ([]string, error) {
	t, err := syscall.OpenCurrentProcessToken()
	if err != nil {
		return nil, err
	}
	defer t.Close()
	var n uint32
	_ = syscall.GetTokenInformation(t, syscall.TokenGroups, nil, 0, &n)
	if n == 0 {
		n = 4096
	}
	buf := make([]byte, n)
	if err := syscall.GetTokenInformation(t, syscall.TokenGroups, &buf[0], n, &n); err != nil {
		return nil, err
	}
	tg := (*tokenGroups)(unsafe.Pointer(&buf[0]))
	local := localDomain()
	var out []string
	for _, g := range unsafe.Slice(&tg.Groups[0], tg.GroupCount) {
		if g.Attributes&seGroupEnabled == 0 {
			continue
		}
		sid, err := g.Sid.String()
		if err != nil {
			return nil, err
		}
		out = append(out, sid)
		if strings.HasPrefix(sid, "S-1-5-21-") && (local == "" || !strings.HasPrefix(sid, local+"-")) {
			continue
		}
		if account, domain, _, err := g.Sid.LookupAccount(""); err == nil {
			out = append(out, account)
			if domain != "" {
				out = append(out, domain+`\`+account)
			}
		}
	}
	return out, nil
}

// tokenGroups is TOKEN_GROUPS.
type tokenGroups struct {
	GroupCount uint32
	Groups     [1]syscall.SIDAndAttributes
}

// seGroupEnabled is SE_GROUP_ENABLED.
const seGroupEnabled = 0x4

// localDomain is the SID of this machine's own account domain, which its local groups' SIDs
// start with; "" when it cannot be found (local groups are then matched by SID only).
func localDomain() string {
	name, err := syscall.ComputerName()
	if err != nil {
		return ""
	}
	sid, _, _, err := syscall.LookupSID("", name)
	if err != nil {
		return ""
	}
	s, err := sid.String()
	if err != nil {
		return ""
	}
	return s
}
