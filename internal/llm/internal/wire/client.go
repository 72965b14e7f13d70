package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"

	"github.com/olly-agent/olly/internal/llm"
)

// maxErrorBody bounds how much of an error response is read: enough for any
// real error object, small enough that a misbehaving proxy cannot stall us.
const maxErrorBody = 1 << 20

// Client sends requests to one model server with the rules both dialects
// share: JSON bodies, bearer token, user agent, retries for connection
// failures and 5xx only, and every failure returned as an *llm.Error that
// names the request, the server and the model.
type Client struct {
	// BaseURL is the normalised server root; Call.Path is appended to it.
	BaseURL string
	// Dialect is "ollama" or "openai".
	Dialect string
	Settings
	// ParseError extracts the server's error from a non-2xx body. It
	// reports false when the body is not the dialect's error JSON.
	ParseError func(body []byte) (ServerError, bool)
	// noDrain is set once a server kept a stream open after its final
	// chunk (Body.drain); nil: never drain.
	noDrain *atomic.Bool
}

// Call is one request.
type Call struct {
	Method string
	// Path starts with "/", e.g. "/api/chat".
	Path string
	// Model is the model the request is for, reported in errors.
	Model string
	// Body is encoded as JSON, or encodes itself (BodyEncoder); nil
	// sends no body.
	Body any
	// Accept is the Accept header; empty means application/json.
	Accept string
}

// Op names the request in errors, e.g. "POST /api/chat".
func (c *Call) Op() string { return c.Method + " " + c.Path }

// Err builds an error about call with everything the message needs.
func (c *Client) Err(call *Call, kind llm.ErrorKind, status int, message string, cause error) *llm.Error {
	return &llm.Error{
		Kind:       kind,
		Op:         call.Op(),
		BaseURL:    c.BaseURL,
		Model:      call.Model,
		StatusCode: status,
		Message:    message,
		Dialect:    c.Dialect,
		Err:        cause,
	}
}

// Canceled is the error for a call whose context ended. It wraps ctx.Err()
// so that errors.Is(err, context.Canceled) holds.
func (c *Client) Canceled(ctx context.Context, call *Call) *llm.Error {
	return c.Err(call, llm.KindCanceled, 0, "", ctx.Err())
}

// ReadErr classifies a failure reading a response body: the caller's
// context ending is a cancellation, a body gone silent a timeout, anything
// else a dropped connection.
func (c *Client) ReadErr(ctx context.Context, call *Call, err error) *llm.Error {
	if ctx.Err() != nil {
		return c.Canceled(ctx, call)
	}
	var te *llm.TimeoutError
	if errors.As(err, &te) {
		return c.Err(call, llm.KindTimeout, 0, "", te)
	}
	return c.Err(call, llm.KindConnection, 0, "", err)
}

// Open sends call and returns the 2xx response; the caller reads and closes
// its body. Connection failures and 5xx responses are retried per the
// policy. Nothing is retried once Open has returned: a stream that breaks
// half-way is never replayed, because its first half already reached the
// person.
func (c *Client) Open(ctx context.Context, call *Call) (*http.Response, error) {
	body, err := Encode(call.Body)
	if err != nil {
		return nil, c.Err(call, llm.KindBadRequest, 0, "", fmt.Errorf("encode request: %w", err))
	}
	var resp *http.Response
	err = c.Retry.Do(ctx, func() error {
		var aerr error
		resp, aerr = c.attempt(ctx, call, body)
		return aerr
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, c.Canceled(ctx, call)
		}
		return nil, err
	}
	return resp, nil
}

// JSON sends call and decodes the whole 2xx body into out. Here a body
// that breaks off is retried too: nothing of it has reached the caller.
func (c *Client) JSON(ctx context.Context, call *Call, out any) error {
	body, err := Encode(call.Body)
	if err != nil {
		return c.Err(call, llm.KindBadRequest, 0, "", fmt.Errorf("encode request: %w", err))
	}
	err = c.Retry.Do(ctx, func() error {
		resp, err := c.attempt(ctx, call, body)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return c.ReadErr(ctx, call, err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			e := c.Err(call, llm.KindMalformedStream, resp.StatusCode, "", fmt.Errorf("decode response: %w", err))
			e.Line = llm.QuoteLine(data)
			return e
		}
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return c.Canceled(ctx, call)
	}
	return err
}

// attempt makes one request. A non-2xx response is read, closed and turned
// into an error. A 2xx response's body is watched for silence (see
// timeout.go); closing it releases the attempt.
func (c *Client) attempt(ctx context.Context, call *Call, body Pieces) (*http.Response, error) {
	actx, cancel, headers := c.attemptContext(ctx)
	req, err := http.NewRequestWithContext(actx, call.Method, c.BaseURL+call.Path, nil)
	if err != nil {
		cancel(nil)
		return nil, c.Err(call, llm.KindBadRequest, 0, "", err)
	}
	if body != nil {
		setBody(req, body)
	}
	c.setHeaders(req, call, body != nil)
	resp, err := c.HTTP.Do(req)
	if headers != nil {
		headers.Stop()
	}
	if err != nil {
		defer cancel(nil)
		if ctx.Err() != nil {
			return nil, c.Canceled(ctx, call)
		}
		if te := timeoutCause(actx); te != nil {
			return nil, c.Err(call, llm.KindTimeout, 0, "", te)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is already in the message
		}
		return nil, c.Err(call, llm.KindConnection, 0, "", err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		resp.Body = newIdleBody(resp.Body, actx, cancel, c.Timeouts.Idle)
		return resp, nil
	}
	defer cancel(nil)
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return nil, c.statusErr(call, resp.StatusCode, data)
}

func (c *Client) setHeaders(req *http.Request, call *Call, hasBody bool) {
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	accept := call.Accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
}

func (c *Client) statusErr(call *Call, status int, body []byte) *llm.Error {
	se, ok := ServerError{}, false
	if c.ParseError != nil {
		se, ok = c.ParseError(body)
	}
	if !ok {
		se = ServerError{Message: PlainMessage(body)}
	}
	if se.Message == "" {
		se.Message = http.StatusText(status)
	}
	return c.Err(call, StatusKind(status, se), status, se.Message, nil)
}

// OpenStream sends call and hands the open body of its 2xx response to
// wrap, the dialect's stream decoder, which then owns it.
func OpenStream[T any](ctx context.Context, c *Client, call *Call, wrap func(context.Context, *Client, *Call, io.ReadCloser) llm.Stream[T]) (llm.Stream[T], error) {
	resp, err := c.Open(ctx, call)
	if err != nil {
		return nil, err
	}
	return wrap(ctx, c, call, resp.Body), nil
}
