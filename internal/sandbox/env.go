package sandbox

import "os"

func syscallEnviron() []string { return os.Environ() }
