package event

// TypeModelRetry is a retry of a transient model error (ephemeral).
const TypeModelRetry Type = "model_retry"

// Retry phases.
const (
	RetryStart = "start" // a retry is about to wait, then try again
	RetryEnd   = "end"   // the retries are over
)

// ModelRetry reports a retry of a model request that failed transiently
// (connection, server error, timeout, 429) (ephemeral: the answer or the
// error event that follows is what the log keeps).
type ModelRetry struct {
	Iteration int `json:"iteration"`
	// Phase is RetryStart or RetryEnd.
	Phase string `json:"phase"`
	// Attempt counts retries from 1; MaxAttempts is how many there may be.
	Attempt     int `json:"attempt"`
	MaxAttempts int `json:"maxAttempts,omitempty"`
	// DelayMs is the wait before the retry (start).
	DelayMs int64 `json:"delayMs,omitempty"`
	// Success: the last retry got an answer (end).
	Success bool `json:"success,omitempty"`
	// Error is the failure being retried (start) or the final one (end).
	Error string `json:"error,omitempty"`
}

// EventType implements Payload.
func (ModelRetry) EventType() Type { return TypeModelRetry }
