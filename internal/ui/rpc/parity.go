package rpc

// parityCommands are the commands pi's clients send that olly answers
// like pi (fork, thinking levels, queue modes, retries, cycling models).
func parityCommands() []*command {
	return append(append(append(forkCommands(), sessionSettingsCommands()...), queueCommands()...), retryCommands()...)
}
