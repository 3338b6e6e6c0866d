package policy

// Windows has no zoneinfo database for Go to read, and time.LoadLocation fails there for every
// name unless the Go toolchain happens to be installed: a policy with a time zone would then
// deny every command. So the Windows build carries the database (time/tzdata, used only when
// the system has none); elsewhere the system's /usr/share/zoneinfo is read. The README says what
// it costs.
import _ "time/tzdata"
