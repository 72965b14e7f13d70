package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// EmbedFunc computes one vector per text, in order. The model client
// provides it (Ollama /api/embed); the store never makes vectors up.
type EmbedFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Embedder names an embedding model and the function that calls it.
// Vectors of different models are kept apart.
type Embedder struct {
	Model string
	Embed EmbedFunc
}

// errNoVectors: the model has no vectors (yet) to search.
var errNoVectors = errors.New("no vectors")

// maxDim bounds a vector's dimension (the largest embedding models are
// near 4096).
const maxDim = 16384

// embeddingModel is a row of embedding_models.
type embeddingModel struct {
	id     int64
	dim    int // 0 until the first vector
	cursor int64
}

func getEmbeddingModel(ctx context.Context, q querier, name string) (embeddingModel, error) {
	var m embeddingModel
	var dim sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT id, dim, cursor FROM embedding_models WHERE name = ?`, name).
		Scan(&m.id, &dim, &m.cursor)
	if errors.Is(err, sql.ErrNoRows) {
		return m, ErrNotFound
	}
	m.dim = int(dim.Int64)
	return m, err
}

// ensureEmbeddingModel returns the model's row, creating it.
func (s *Store) ensureEmbeddingModel(ctx context.Context, tx *sql.Tx, name string) (embeddingModel, error) {
	if _, err := tx.ExecContext(ctx, `INSERT INTO embedding_models (name, created_at) VALUES (?, ?)
		ON CONFLICT (name) DO NOTHING`, name, s.now()); err != nil {
		return embeddingModel{}, err
	}
	return getEmbeddingModel(ctx, tx, name)
}

// bitsFor is the width of the sign-bit code of a dim-dimensional vector
// (vec0 bit columns need a multiple of 8).
func bitsFor(dim int) int { return (dim + 7) / 8 * 8 }

func vecTable(bits int) string { return "vec_bits_" + strconv.Itoa(bits) }

// ensureVecTable creates the KNN table for codes of this width, and the
// trigger that removes a code when its embedding row goes (with its event,
// when a session is deleted). The names are built from an integer.
func ensureVecTable(ctx context.Context, tx *sql.Tx, bits int) error {
	t, b := vecTable(bits), strconv.Itoa(bits)
	if _, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS `+t+
		` USING vec0(model_id integer partition key, code bit[`+b+`])`); err != nil {
		return fmt.Errorf("create %s: %w", t, err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TRIGGER IF NOT EXISTS embeddings_ad_`+b+
		` AFTER DELETE ON embeddings
		WHEN (SELECT (dim + 7) / 8 * 8 FROM embedding_models WHERE id = old.model_id) = `+b+` BEGIN
			DELETE FROM `+t+` WHERE rowid = old.id;
		END`); err != nil {
		return fmt.Errorf("create trigger for %s: %w", t, err)
	}
	return nil
}

// vectorItem is one event's vector to store.
type vectorItem struct {
	eventID int64
	vec     []float32
}

// storeVectors saves vectors for model and moves its indexer cursor to
// cursor, in one transaction. The model's dimension is fixed by its first
// vector; a vector of another size is an error (the model changed under
// the same name). An event that already has a vector keeps it.
func (s *Store) storeVectors(ctx context.Context, model string, items []vectorItem, cursor int64) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer rollback(tx)
	m, err := s.ensureEmbeddingModel(ctx, tx, model)
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := checkVector(it.vec, m.dim); err != nil {
			return fmt.Errorf("embedding model %s: %w", model, err)
		}
		if m.dim == 0 {
			m.dim = len(it.vec)
			if _, err := tx.ExecContext(ctx, `UPDATE embedding_models SET dim = ? WHERE id = ?`, m.dim, m.id); err != nil {
				return err
			}
			if err := ensureVecTable(ctx, tx, bitsFor(m.dim)); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO embeddings (event_id, model_id, vector, created_at)
			VALUES (?, ?, ?, ?) ON CONFLICT (event_id, model_id) DO NOTHING`,
			it.eventID, m.id, encodeVector(it.vec), s.now())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue
		}
		id, _ := res.LastInsertId()
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+vecTable(bitsFor(m.dim))+
			`(rowid, model_id, code) VALUES (?, ?, vec_bit(?))`, id, m.id, signCode(it.vec)); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE embedding_models SET cursor = max(cursor, ?) WHERE id = ?`,
		cursor, m.id); err != nil {
		return err
	}
	return tx.Commit()
}

func checkVector(v []float32, dim int) error {
	if len(v) == 0 || len(v) > maxDim {
		return fmt.Errorf("vector has %d dimensions", len(v))
	}
	if dim != 0 && len(v) != dim {
		return fmt.Errorf("vector has %d dimensions, the model's earlier ones had %d", len(v), dim)
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errors.New("vector holds NaN or infinity")
		}
	}
	return nil
}

// encodeVector stores v as little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// signCode is the binary quantization of v: bit i set when v[i] > 0. The
// Hamming distance between codes approximates the angle between vectors,
// so a scan over 96-byte codes finds the candidates that exact cosine
// similarity then ranks.
func signCode(v []float32) []byte {
	b := make([]byte, bitsFor(len(v))/8)
	for i, x := range v {
		if x > 0 {
			b[i/8] |= 1 << (i % 8)
		}
	}
	return b
}

// cosine is the cosine similarity of a and b (0 when either is zero).
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// vectorHit is an event found by meaning.
type vectorHit struct {
	eventID    int64
	similarity float64
}

// knnCandidates is how many codes the Hamming scan keeps for exact
// re-ranking (3× the meaning ranking's depth: binary quantization with
// that much oversampling keeps most of the true neighbours). Every vector
// is ranked exactly while a model has no more than this many. The scan's
// cost grows with it.
const knnCandidates = 150

// nearest returns up to k events of model most similar to q, best first,
// optionally only from sessions in workspace: a Hamming-distance scan over
// the sign codes (vec0) picks candidates, exact cosine similarity over the
// stored float vectors ranks them.
func (s *Store) nearest(ctx context.Context, model string, q []float32, k int, workspace string) ([]vectorHit, error) {
	m, err := getEmbeddingModel(ctx, s.r, model)
	if errors.Is(err, ErrNotFound) || (err == nil && m.dim == 0) {
		return nil, errNoVectors
	}
	if err != nil {
		return nil, err
	}
	if err := checkVector(q, m.dim); err != nil {
		return nil, fmt.Errorf("query vector of model %s: %w", model, err)
	}
	candidates := max(knnCandidates, 3*k)
	if workspace != "" {
		candidates *= 2 // some candidates will belong to other workspaces
	}
	rows, err := s.r.QueryContext(ctx, `SELECT e.event_id, e.vector FROM embeddings e
		JOIN events ev ON ev.id = e.event_id JOIN sessions ss ON ss.id = ev.session_id
		WHERE e.id IN (SELECT rowid FROM `+vecTable(bitsFor(m.dim))+`
			WHERE code MATCH vec_bit(?) AND k = ? AND model_id = ?)
		AND (? = '' OR ss.workspace = ?)`, signCode(q), candidates, m.id, workspace, workspace)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []vectorHit
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, err
		}
		hits = append(hits, vectorHit{eventID: id, similarity: cosine(q, decodeVector(blob))})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].similarity != hits[j].similarity {
			return hits[i].similarity > hits[j].similarity
		}
		return hits[i].eventID < hits[j].eventID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}
