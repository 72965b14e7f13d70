package lspserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/llm"
)

// fimMode is how a model is asked to fill in the middle.
type fimMode string

const (
	// modeInsert: Ollama /api/generate with suffix; the model's template
	// (it has the insert capability) places the FIM tokens.
	modeInsert fimMode = "insert"
	// modeRaw: /api/generate (or /v1/completions) with raw: the family's
	// tokens written by olly.
	modeRaw fimMode = "raw"
	// modeSuffix: /v1/completions with suffix, for OpenAI-compatible
	// servers that offer it.
	modeSuffix fimMode = "suffix"
	// modePrefix: no way to fill in the middle is known; the model
	// continues the prefix (multi-line completions are then poorer).
	modePrefix fimMode = "prefix"
)

// choice is the completion model and how to ask it.
type choice struct {
	model  string
	mode   fimMode
	family *Family
}

// retryResolveAfter is how long a failed model lookup is remembered, so a
// server that is down costs one lookup per interval, not one per
// keystroke.
const retryResolveAfter = 30 * time.Second

// resolver finds the completion model once and remembers it.
type resolver struct {
	p        llm.Provider
	want     string
	mu       sync.Mutex
	got      *choice
	err      error
	failedAt time.Time
}

// get returns the model choice, looking it up on first use.
func (r *resolver) get(ctx context.Context) (*choice, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.got != nil {
		return r.got, nil
	}
	if r.err != nil && time.Since(r.failedAt) < retryResolveAfter {
		return nil, r.err
	}
	c, err := r.lookup(ctx)
	if err != nil {
		if ctx.Err() == nil { // a canceled lookup says nothing about the server
			r.err, r.failedAt = err, time.Now()
		}
		return nil, err
	}
	r.got, r.err = c, nil
	return c, nil
}

// noSuffix records that the server refused a suffix (vLLM): the model is
// asked with its family's tokens from now on, or with the prefix only.
func (r *resolver) noSuffix() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.got == nil || r.got.mode != modeSuffix {
		return
	}
	c := *r.got
	c.mode = modePrefix
	if c.family != nil {
		c.mode = modeRaw
	}
	r.got = &c
}

func (r *resolver) lookup(ctx context.Context) (*choice, error) {
	if r.want != "" {
		return r.describe(ctx, r.want)
	}
	return r.pick(ctx)
}

// describe decides how to ask a named model: Ollama reports the insert
// capability; an OpenAI-compatible server is asked with a suffix.
func (r *resolver) describe(ctx context.Context, name string) (*choice, error) {
	c := &choice{model: name, family: FamilyOf(name)}
	if r.p.Dialect() == "openai" {
		c.mode = modeSuffix
		return c, nil
	}
	d, err := r.p.ShowModel(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("completion model %s: %w", name, err)
	}
	switch {
	case d.Capabilities.FIM:
		c.mode = modeInsert
	case c.family != nil:
		c.mode = modeRaw
	default:
		c.mode = modePrefix
	}
	return c, nil
}

// pick chooses a model when completionMode.model is not set: one with the
// insert capability (Ollama), then one of a family olly has FIM tokens
// for; among equals the smallest, since a completion must be quick.
func (r *resolver) pick(ctx context.Context) (*choice, error) {
	infos, err := r.p.ListModels(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models for completion: %w", err)
	}
	type cand struct {
		c    *choice
		rank int
		size int64
	}
	var cands []cand
	for _, info := range infos {
		c := &choice{model: info.Name, family: FamilyOf(info.Name)}
		rank := 2
		if c.family != nil {
			rank, c.mode = 1, modeRaw
		}
		if r.p.Dialect() == "ollama" {
			d, err := r.p.ShowModel(ctx, info.Name)
			if err == nil && d.Capabilities.FIM {
				rank, c.mode = 0, modeInsert
			}
		} else if c.family != nil {
			c.mode = modeSuffix
		}
		if rank < 2 {
			cands = append(cands, cand{c, rank, info.Size})
		}
	}
	if len(cands) == 0 {
		return nil, errors.New("no installed model can fill in the middle: pull one (ollama pull qwen2.5-coder:1.5b) or set completionMode.model")
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.size, b.size), strings.Compare(a.c.model, b.c.model))
	})
	return cands[0].c, nil
}
