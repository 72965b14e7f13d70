package rpcproto

// pi's auto-retry events, written while a model request that failed
// transiently (connection, server error, timeout, 429) is retried.
const (
	PiAutoRetryStart = "auto_retry_start"
	PiAutoRetryEnd   = "auto_retry_end"
)

// PiAutoRetryStartEvent: a retry waits delayMs, then tries again.
type PiAutoRetryStartEvent struct {
	Type         string `json:"type"`
	Attempt      int    `json:"attempt"`
	MaxAttempts  int    `json:"maxAttempts"`
	DelayMs      int64  `json:"delayMs"`
	ErrorMessage string `json:"errorMessage"`
}

// PiAutoRetryEndEvent: the retries are over; finalError when they failed.
type PiAutoRetryEndEvent struct {
	Type       string `json:"type"`
	Success    bool   `json:"success"`
	Attempt    int    `json:"attempt"`
	FinalError string `json:"finalError,omitempty"`
}
