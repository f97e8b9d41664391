package lsp

import (
	"bytes"
	"os"
	"strconv"
)

// procStat reads a process's state and start time (in clock ticks since
// boot) from /proc/<pid>/stat: "pid (comm) S ppid ... starttime ...", where
// comm may hold spaces and parentheses, so fields are counted from the last
// ')'. The state is field 3 and the start time field 22.
func procStat(pid int) (state byte, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, "", false
	}
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 20 || len(fields[0]) != 1 {
		return 0, "", false
	}
	return fields[0][0], string(fields[19]), true
}
