//go:build !linux

package procs

// SysmonEnv is the variable that keeps the runtime's monitor thread as it
// is (Linux only; elsewhere nothing is changed).
const SysmonEnv = "OLLY_SYSMON_BATCH"

func batchSysmon(func(string) string) int { return 0 }
