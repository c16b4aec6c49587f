package progress

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/kata-mcp/kata/internal/sqldb"
)

// SetLanguage records lang as the workspace language chosen for kata (a template folder's
// name: "python", "node", "go"), replacing an earlier choice.
func (s *Store) SetLanguage(kata, lang string, at time.Time) error {
	if kata == "" || lang == "" {
		return fmt.Errorf("progress store %s: language: kata %q and language %q must both be set", s.path, kata, lang)
	}
	return s.write("recording the language", func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO kata_languages(kata, language, at) VALUES(?, ?, ?)
			ON CONFLICT(kata) DO UPDATE SET language = excluded.language, at = excluded.at`, kata, lang, sqldb.NS(orNow(at)))
		return err
	})
}

// Language returns the workspace language chosen for kata, "" if none was.
func (s *Store) Language(kata string) (string, error) {
	var lang string
	err := s.read("reading the language", func(tx *sql.Tx) error {
		var err error
		lang, err = language(tx, kata)
		return err
	})
	return lang, err
}

// language reads kata's chosen language inside tx.
func language(tx *sql.Tx, kata string) (string, error) {
	var lang string
	err := tx.QueryRow(`SELECT language FROM kata_languages WHERE kata = ?`, kata).Scan(&lang)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return lang, err
}
