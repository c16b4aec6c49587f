package progress

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kata-mcp/kata/internal/sqldb"
	"github.com/kata-mcp/kata/katas"
)

// MarshalJSON writes a grading run with its duration as "duration_ms" (milliseconds).
func (g GradeRun) MarshalJSON() ([]byte, error) {
	type plain GradeRun
	return json.Marshal(struct {
		plain
		DurationMS int64 `json:"duration_ms"`
	}{plain(g), g.Duration.Milliseconds()})
}

// openAnswersFrom selects the answered (non-empty) exam answers of open attempts.
const openAnswersFrom = ` FROM exam_answers e JOIN attempts a ON a.id = e.attempt_id
	WHERE a.finished_at IS NULL AND a.abandoned_at IS NULL AND e.chosen != '[]'`

// kataStats computes one kata's figures at now inside tx.
func kataStats(tx *sql.Tx, kata string, now time.Time) (KataStats, error) {
	k := KataStats{Kata: kata, LayersRead: []string{}}
	rows, err := tx.Query(`SELECT layer FROM layer_reads WHERE kata = ?`, kata)
	if err != nil {
		return k, err
	}
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			rows.Close()
			return k, err
		}
		k.LayersRead = append(k.LayersRead, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return k, err
	}
	sortLayers(k.LayersRead)

	if err := tx.QueryRow(`SELECT count(*), coalesce(sum(correct), 0) FROM answers WHERE kata = ?`, kata).Scan(&k.Answered, &k.Correct); err != nil {
		return k, err
	}
	if err := tx.QueryRow(`SELECT count(*)`+openAnswersFrom+` AND substr(e.ref, 1, length(?) + 1) = ? || '/'`, kata, kata).Scan(&k.InProgress); err != nil {
		return k, err
	}
	k.Answered += k.InProgress

	var bestAt int64
	// the kata's own share of each finished attempt, on the exam's scale (100 + 900 × right/items,
	// rounded half up): a mixed exam says how this kata went, not how the whole exam went
	err = tx.QueryRow(`SELECT 100 + (1800 * c + n) / (2 * n) AS s, finished_at FROM (
		SELECT a.finished_at,
			(SELECT count(*) FROM json_each(a.items) j WHERE substr(j.value, 1, length(?1) + 1) = ?1 || '/') AS n,
			(SELECT count(*) FROM answers w WHERE w.attempt_id = a.id AND w.kata = ?1 AND w.correct = 1) AS c
		FROM attempts a WHERE a.finished_at IS NOT NULL)
		WHERE n > 0 ORDER BY s DESC, finished_at LIMIT 1`, kata).Scan(&k.BestScaled, &bestAt)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return k, err
	}
	k.BestAt = sqldb.FromNS(bestAt)

	if k.LastGrade, err = lastGrade(tx, kata); err != nil {
		return k, err
	}
	err = tx.QueryRow(`SELECT count(*), coalesce(sum(due <= ?), 0) FROM cards WHERE kata = ?`, sqldb.NS(now), kata).Scan(&k.Cards, &k.Due)
	return k, err
}

// bestExam returns the finished attempt with an item of kata whose scaled score is the highest
// (the earliest of equals), nil if none.
func bestExam(tx *sql.Tx, kata string) (*ExamScore, error) {
	var e ExamScore
	var at int64
	err := tx.QueryRow(`SELECT scaled, points, max, finished_at, n, c FROM (
		SELECT a.scaled, a.points, a.max, a.finished_at,
			(SELECT count(*) FROM json_each(a.items) j WHERE substr(j.value, 1, length(?1) + 1) = ?1 || '/') AS n,
			(SELECT count(*) FROM answers w WHERE w.attempt_id = a.id AND w.kata = ?1 AND w.correct = 1) AS c
		FROM attempts a WHERE a.finished_at IS NOT NULL)
		WHERE n > 0 ORDER BY scaled DESC, finished_at LIMIT 1`, kata).Scan(&e.Scaled, &e.Points, &e.Max, &at, &e.KataItems, &e.KataRight)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	e.Finished = sqldb.FromNS(at)
	return &e, nil
}

// sortLayers orders layer names as katas.LayerNames, unknown names last alphabetically.
func sortLayers(ls []string) {
	rank := func(l string) int {
		if i := slices.Index(katas.LayerNames, l); i >= 0 {
			return i
		}
		return len(katas.LayerNames)
	}
	slices.SortFunc(ls, func(a, b string) int { return cmp.Or(rank(a)-rank(b), strings.Compare(a, b)) })
}

// lastGrade returns the newest grading run of a kata (of any kata when kata is "*"), nil if
// none.
func lastGrade(tx *sql.Tx, kata string) (*GradeRun, error) {
	return lastGradeIn(tx, kata, "")
}

// lastGradeIn is lastGrade limited to the runs of the folder workspace ("" means any folder).
func lastGradeIn(tx *sql.Tx, kata, workspace string) (*GradeRun, error) {
	var (
		g       GradeRun
		dur, at int64
	)
	err := tx.QueryRow(`SELECT kata, workspace, seed, status, passed, failed, errored, duration_ns, at FROM grade_runs
		WHERE (?1 = '*' OR kata = ?1) AND (?2 = '' OR workspace = ?2) ORDER BY at DESC, id DESC LIMIT 1`, kata, workspace).Scan(&g.Kata, &g.Workspace, &g.Seed, &g.Status, &g.Passed, &g.Failed, &g.Errored, &dur, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	g.Duration, g.At = time.Duration(dur), sqldb.FromNS(at)
	return &g, nil
}

// LastGradeIn returns the newest grading run of kata in the folder workspace (compared as an
// absolute, cleaned path, as the grader records it), nil if none: the app's task screen shows
// its own workspace's last grade after a restart, not that of a scratch copy graded since.
func (s *Store) LastGradeIn(kata, workspace string) (*GradeRun, error) {
	if abs, err := filepath.Abs(workspace); err == nil {
		workspace = abs
	}
	var g *GradeRun
	err := s.read("reading the last grade of "+kata, func(tx *sql.Tx) error {
		var err error
		g, err = lastGradeIn(tx, kata, workspace)
		return err
	})
	return g, err
}

// Summary returns one kata's progress at now, for the catalog.
func (s *Store) Summary(kata string, now time.Time) (KataSummary, error) {
	var sum KataSummary
	err := s.read("summarising "+kata, func(tx *sql.Tx) error {
		k, err := kataStats(tx, kata, now)
		sum = KataSummary{LayersRead: k.LayersRead, BestScaled: k.BestScaled, BestAt: k.BestAt, LastGrade: k.LastGrade,
			Due: k.Due, Answered: k.Answered, Correct: k.Correct}
		if err != nil {
			return err
		}
		if sum.BestExam, err = bestExam(tx, kata); err != nil {
			return err
		}
		sum.Language, err = language(tx, kata)
		return err
	})
	return sum, err
}

// Stats returns the store's totals and per-kata figures at now, from one snapshot. Answers
// saved in an open (unsubmitted) attempt count as answered and in progress, not as correct or
// wrong.
func (s *Store) Stats(now time.Time) (Stats, error) {
	st := Stats{Katas: []KataStats{}}
	err := s.read("computing stats", func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT kata FROM layer_reads UNION SELECT kata FROM answers UNION SELECT kata FROM cards
			UNION SELECT kata FROM grade_runs WHERE kata != ''
			UNION SELECT j.value FROM attempts, json_each(attempts.katas) j
			UNION SELECT substr(e.ref, 1, instr(e.ref, '/') - 1)` + openAnswersFrom + ` AND instr(e.ref, '/') > 1
			ORDER BY 1`)
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			k, err := kataStats(tx, id, now)
			if err != nil {
				return err
			}
			st.Katas = append(st.Katas, k)
		}

		if err := tx.QueryRow(`SELECT count(*), coalesce(sum(correct), 0) FROM answers`).Scan(&st.Answered, &st.Correct); err != nil {
			return err
		}
		if err := tx.QueryRow(`SELECT count(*)` + openAnswersFrom).Scan(&st.InProgress); err != nil {
			return err
		}
		st.Answered += st.InProgress
		if err := tx.QueryRow(`SELECT coalesce(sum(finished_at IS NOT NULL), 0), coalesce(sum(`+openWhere+`), 0),
			coalesce(sum(abandoned_at IS NOT NULL), 0) FROM attempts`).Scan(&st.AttemptsFinished, &st.AttemptsOpen, &st.AttemptsAbandoned); err != nil {
			return err
		}
		var bestAt int64
		err = tx.QueryRow(`SELECT scaled, finished_at FROM attempts WHERE finished_at IS NOT NULL ORDER BY scaled DESC, finished_at LIMIT 1`).Scan(&st.BestScaled, &bestAt)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		st.BestAt = sqldb.FromNS(bestAt)
		if st.LastGrade, err = lastGrade(tx, "*"); err != nil {
			return err
		}
		if err := tx.QueryRow(`SELECT (SELECT count(*) FROM grade_runs), (SELECT count(*) FROM reviews),
			(SELECT count(*) FROM cards), (SELECT count(*) FROM cards WHERE due <= ?)`, sqldb.NS(now)).Scan(&st.GradeRuns, &st.Reviews, &st.Cards, &st.Due); err != nil {
			return err
		}
		return openStats(tx, &st)
	})
	return st, err
}

// openStats fills st.Open from the newest open attempt.
func openStats(tx *sql.Tx, st *Stats) error {
	a, err := scanAttempt(tx.QueryRow(newestOpen))
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	o := &OpenStats{ID: a.ID, Katas: a.Katas, Started: a.Started, Items: len(a.Items)}
	if err := tx.QueryRow(`SELECT coalesce(sum(chosen != '[]'), 0), coalesce(sum(flagged), 0) FROM exam_answers WHERE attempt_id = ?`, a.ID).Scan(&o.Answered, &o.Flagged); err != nil {
		return err
	}
	st.Open = o
	return nil
}
