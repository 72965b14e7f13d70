package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// ModelInfo is what the model server reports about one installed model.
type ModelInfo struct {
	Name         string `json:"name"`
	Size         int64  `json:"size"`
	Family       string `json:"family"`
	Quantization string `json:"quantization"`
	// Capabilities is the model client's JSON (llm.Capabilities); the
	// store keeps it as given.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// ContextLength is the trained context window; 0 when unknown.
	ContextLength int `json:"contextLength,omitempty"`
	// Dialect is the tool-call dialect read from the model's template
	// (toolcall.TemplateDialect); "" when none was recognised.
	Dialect string `json:"dialect,omitempty"`
}

// Model is a cached model with the person's own settings for it.
type Model struct {
	ModelInfo
	// Enabled models are offered in model pickers (default true).
	Enabled bool `json:"enabled"`
	// NumCtxCap caps the context window sent for this model; 0 = no cap.
	NumCtxCap int `json:"numCtxCap,omitempty"`
	// Installed is false for a model the server no longer lists; its
	// settings are kept in case it comes back.
	Installed bool      `json:"installed"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// RefreshModels records the server's current model list: new models are
// added (enabled), listed ones updated and marked installed, and models no
// longer listed marked not installed. The enabled flag and the context cap
// are never touched, unlike the seed's delete-then-insert, which lost them.
func (s *Store) RefreshModels(ctx context.Context, models []ModelInfo) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return classify(s.file, fmt.Errorf("refresh models: %w", err))
	}
	defer rollback(tx)
	now := s.now()
	if _, err := tx.ExecContext(ctx, `UPDATE models SET installed = 0, updated_at = ? WHERE installed = 1`, now); err != nil {
		return classify(s.file, fmt.Errorf("refresh models: %w", err))
	}
	for _, m := range models {
		if m.Name == "" {
			return fmt.Errorf("refresh models: a model has no name")
		}
		caps := m.Capabilities
		if len(caps) == 0 {
			caps = json.RawMessage("{}")
		} else if !json.Valid(caps) {
			return fmt.Errorf("refresh models: capabilities of %s are not valid JSON", m.Name)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO models
			(name, size, family, quantization, capabilities, context_length, dialect, installed, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)
			ON CONFLICT (name) DO UPDATE SET size = excluded.size, family = excluded.family,
				quantization = excluded.quantization, capabilities = excluded.capabilities,
				context_length = excluded.context_length, dialect = excluded.dialect,
				installed = 1, updated_at = excluded.updated_at`,
			m.Name, m.Size, m.Family, m.Quantization, string(caps), nullPositive(m.ContextLength), m.Dialect, now); err != nil {
			return classify(s.file, fmt.Errorf("refresh models: %s: %w", m.Name, err))
		}
	}
	return classify(s.file, tx.Commit())
}

func nullPositive(n int) any {
	if n <= 0 {
		return nil
	}
	return n
}

// Models returns every cached model, installed or not, by name. With the
// server unreachable this is the offline list.
func (s *Store) Models(ctx context.Context) ([]Model, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name, size, family, quantization, capabilities,
		context_length, dialect, enabled, num_ctx_cap, installed, updated_at FROM models ORDER BY name`)
	if err != nil {
		return nil, classify(s.file, fmt.Errorf("list models: %w", err))
	}
	defer rows.Close()
	var out []Model
	for rows.Next() {
		var (
			m        Model
			caps     string
			ctxLen   sql.NullInt64
			capValue sql.NullInt64
			at       int64
		)
		if err := rows.Scan(&m.Name, &m.Size, &m.Family, &m.Quantization, &caps, &ctxLen, &m.Dialect,
			&m.Enabled, &capValue, &m.Installed, &at); err != nil {
			return nil, classify(s.file, fmt.Errorf("list models: %w", err))
		}
		m.Capabilities = json.RawMessage(caps)
		m.ContextLength, m.NumCtxCap = int(ctxLen.Int64), int(capValue.Int64)
		m.UpdatedAt = fromMillis(at)
		out = append(out, m)
	}
	return out, classify(s.file, rows.Err())
}

// SetModelEnabled shows or hides a model in pickers. A model not yet in the
// cache is added (not installed) so that the choice is waiting for it.
func (s *Store) SetModelEnabled(ctx context.Context, name string, enabled bool) error {
	return s.upsertModelSetting(ctx, name, "enabled", enabled)
}

// SetModelContextCap caps the context window for a model; 0 removes the
// cap. A model not yet in the cache is added (not installed).
func (s *Store) SetModelContextCap(ctx context.Context, name string, limit int) error {
	if limit < 0 {
		return fmt.Errorf("model %s: context cap %d is negative", name, limit)
	}
	return s.upsertModelSetting(ctx, name, "num_ctx_cap", nullPositive(limit))
}

// upsertModelSetting sets one of the person's columns (a constant chosen
// by the callers above, never user input).
func (s *Store) upsertModelSetting(ctx context.Context, name, column string, value any) error {
	if name == "" {
		return fmt.Errorf("model setting %s: empty model name", column)
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO models (name, installed, updated_at, `+column+`)
		VALUES (?, 0, ?, ?) ON CONFLICT (name) DO UPDATE SET `+column+` = excluded.`+column,
		name, s.now(), value)
	if err != nil {
		return classify(s.file, fmt.Errorf("model %s: set %s: %w", name, column, err))
	}
	return nil
}
