package sqldb

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenSQLiteIsPrivateAndMigrates: a new store's folder is 0700 and its file 0600; the
// migrations run once; a later build's schema is refused untouched.
func TestOpenSQLiteIsPrivateAndMigrates(t *testing.T) {
	ctx := context.Background()
	for _, at := range []VersionAt{UserVersion, SchemaTable} {
		path := filepath.Join(t.TempDir(), "state", "x.db")
		db, err := OpenSQLite(path)
		if err != nil {
			t.Fatal(err)
		}
		s := Schema{Dialect: SQLite, VersionAt: at, Migrations: []string{`CREATE TABLE a (id {{serial}}); CREATE TABLE b (x TEXT)`}}
		for range 2 {
			if err := Migrate(ctx, db, s); err != nil {
				t.Fatalf("VersionAt %d: %v", at, err)
			}
		}
		if _, err := db.Exec(`INSERT INTO b(x) VALUES('y')`); err != nil {
			t.Fatal(err)
		}
		older := Schema{Dialect: SQLite, VersionAt: at}
		if err := Migrate(ctx, db, older); err == nil || !strings.Contains(err.Error(), "newer than this kata's") {
			t.Errorf("VersionAt %d: an older build migrated a newer file: %v", at, err)
		}
		db.Close()
		for p, want := range map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600} {
			if st, err := os.Stat(p); err != nil || st.Mode().Perm() != want {
				t.Errorf("%s: mode %v, want %v (%v)", p, st.Mode().Perm(), want, err)
			}
		}
	}
	if _, err := OpenSQLite(t.TempDir()); err == nil || !strings.Contains(err.Error(), "one file") {
		t.Errorf("a folder as the store: %v", err)
	}
}

// TestQNumbersPlaceholders: PostgreSQL's $1, $2 … in order; SQLite's ? untouched.
func TestQNumbersPlaceholders(t *testing.T) {
	if got := Postgres.Q(`a = ? AND b = ?`); got != `a = $1 AND b = $2` {
		t.Errorf("Postgres.Q: %q", got)
	}
	if got := SQLite.Q(`a = ?`); got != `a = ?` {
		t.Errorf("SQLite.Q: %q", got)
	}
}
