package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"modernc.org/sqlite"
)

// The writer's connections own the committer's prepared statements and
// finalize them before they close. database/sql discards a connection
// that reports itself unusable (the driver's IsValid is false once a
// statement was interrupted: a write whose context ended while it ran or
// waited for the lock), and the driver closes it with sqlite3_close_v2,
// which keeps a connection with live statements open as a zombie, holding
// the database and WAL files, and then frees what finalizing them needs:
// statements not finalized by then never can be.

// sqliteConn is what the store uses of the driver's connection.
type sqliteConn interface {
	driver.Conn
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.ConnBeginTx
	driver.SessionResetter
	driver.Validator
	driver.Pinger
}

// writerConn is a writer connection with the committer's statements on it
// (rawconn.go, insertrows.go). database/sql uses it through the methods
// it forwards; the committer through sql.Conn.Raw.
type writerConn struct {
	sqliteConn
	raw     rawConn         // begin, commit, the head read… (prepared by the committer's first batch)
	inserts map[int]rawStmt // the multi-row inserts, by row count
}

// Close finalizes the committer's statements, then closes the connection.
// database/sql calls it with the connection locked: no batch is running.
func (c *writerConn) Close() error {
	c.raw.close()
	for _, st := range c.inserts {
		st.Close()
	}
	clear(c.inserts)
	return c.sqliteConn.Close()
}

// writerConnector opens the writer's connections as writerConns.
type writerConnector struct{ driver.Connector }

func (wc writerConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := wc.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c, ok := dc.(sqliteConn)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("driver connection %T lacks a method the store needs", dc)
	}
	return &writerConn{sqliteConn: c, inserts: map[int]rawStmt{}}, nil
}

// openWriter opens the writer's database handle on dsn.
func openWriter(dsn string) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(writerConnector{c}), nil
}
