package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/class"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/board"
	"github.com/kata-mcp/kata/workshop/store"
)

// classExportFlags are the flags of `kata class export`.
type classExportFlags struct {
	db, code, out, roster, batch string
}

func newClassExportCmd() *cobra.Command {
	var f classExportFlags
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write what the live workshop recorded as a gradebook: CSV and JSON per learner, the event log, an LMS-ready gradebook CSV",
		Long: "kata class export reads the workshop's store (--db, kata serve's) and writes into --out:\n" +
			"learners.csv and learners.json (one row per learner: layers read, answers, live quiz answers, mock exam best,\n" +
			"each kata's last grade with its points and broken rules, attempts, first pass, time on task), events.jsonl (the\n" +
			"event log, one JSON event a line), gradebook-canvas.csv and gradebook-moodle.csv (for Canvas's and Moodle's grade\n" +
			"imports: with --roster, each learner's student id and email; with --batch, the points kata class grade gave the\n" +
			"same learners, in one sheet).\n" +
			"See docs/workshop.md#gradebook for the columns.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runClassExport(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.db, "db", workshop.DefaultDB(), "the workshop store kata serve keeps (an SQLite file or postgres://…)")
	fl.StringVar(&f.code, "code", "", "the workshop's join `CODE` (default: the one kata serve left in the instructor file)")
	fl.StringVar(&f.out, "out", "kata-export", "the `DIR` to write into")
	fl.StringVar(&f.roster, "roster", "", "a CSV `FILE` mapping learners' names to student ids and emails (name,student_id,email), for the gradebook")
	fl.StringVar(&f.batch, "batch", "", "a kata class grade output `DIR` (its results.db): the batch points join the live ones in the gradebook")
	return cmd
}

func runClassExport(cmd *cobra.Command, f classExportFlags) error {
	lib, err := loadLibrary(cmd)
	if err != nil {
		return err
	}
	loc := i18n.New(userLocale(cmd))
	errw := cmd.ErrOrStderr()
	if f.code == "" {
		i, err := workshop.LoadInstructor(workshop.DefaultInstructorFile())
		if err != nil {
			return err
		}
		f.code = i.Code
	}
	var roster *class.Roster
	if f.roster != "" {
		if roster, err = class.ReadRoster(f.roster); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := store.Open(ctx, f.db)
	if err != nil {
		return err
	}
	defer st.Close()
	ws, err := st.WorkshopByCode(ctx, strings.ToUpper(f.code))
	if err != nil {
		return fmt.Errorf("workshop %s in %s: %w", f.code, st, err)
	}
	var events []workshop.Event
	for after := int64(0); ; {
		page, err := st.Events(ctx, ws.ID, after, 1000, false)
		if err != nil {
			return err
		}
		events = append(events, page...)
		if len(page) < 1000 {
			break
		}
		after = page[len(page)-1].Seq
	}
	var packets []*katas.Packet
	for _, id := range ws.Katas {
		if p, ok := lib.Get(id); ok {
			packets = append(packets, p)
		}
	}
	recs := board.Export(events, packets)
	var unmatched []string
	for i := range recs {
		if e, ok := roster.Lookup(recs[i].Name); ok {
			recs[i].StudentID, recs[i].Email = e.StudentID, e.Email
		} else if roster != nil {
			unmatched = append(unmatched, recs[i].Name)
		}
	}

	// The gradebook: one row per person, keyed by student id (else by name), the live points
	// of each kata and, with --batch, the batch's.
	key := func(name, id string) string {
		if id != "" {
			return "id:" + id
		}
		return "name:" + strings.ToLower(strings.TrimSpace(name))
	}
	var rows []board.GradebookRow
	seen := map[string]bool{}
	addRow := func(name, id, email string) string {
		k := key(name, id)
		if !seen[k] {
			seen[k] = true
			rows = append(rows, board.GradebookRow{Key: k, Name: name, StudentID: id, Email: email})
		}
		return k
	}
	var cols []board.GradebookColumn
	for _, p := range packets {
		max := grader.FormatPoints(grader.ScoreOf(p, &grader.Report{}).Max)
		col := board.GradebookColumn{Header: fmt.Sprintf("%s live (%s points)", p.ID, max), Max: max, Values: map[string]string{}}
		for _, r := range recs {
			for _, k := range r.Katas {
				if k.Kata == p.ID && k.Attempts > 0 {
					col.Values[addRow(r.Name, r.StudentID, r.Email)] = grader.FormatPoints(k.BestPoints)
				}
			}
		}
		cols = append(cols, col)
	}
	for _, r := range recs {
		addRow(r.Name, r.StudentID, r.Email)
	}
	if f.batch != "" {
		bs, err := class.OpenStore(filepath.Join(f.batch, class.StoreFile))
		if err != nil {
			return err
		}
		results, err := bs.Results()
		bs.Close()
		if err != nil {
			return err
		}
		byKata := map[string]*board.GradebookColumn{}
		for _, res := range results {
			p, ok := lib.Get(res.Report.Kata)
			if !ok {
				continue
			}
			col := byKata[p.ID]
			if col == nil {
				max := grader.FormatPoints(grader.ScoreOf(p, &grader.Report{}).Max)
				cols = append(cols, board.GradebookColumn{Header: fmt.Sprintf("%s batch (%s points)", p.ID, max), Max: max, Values: map[string]string{}})
				col = &cols[len(cols)-1]
				byKata[p.ID] = col
			}
			e, ok := roster.Lookup(res.Name)
			if !ok && roster != nil && !slices.Contains(unmatched, res.Name) {
				unmatched = append(unmatched, res.Name)
			}
			col.Values[addRow(res.Name, e.StudentID, e.Email)] = grader.FormatPoints(grader.ScoreOf(p, res.Report).Points)
		}
	}
	if len(unmatched) > 0 {
		warning(errw, loc, i18n.M("class.cli.roster_missing", "Roster", f.roster, "N", len(unmatched), "Names", strings.Join(unmatched, ", ")))
	}

	var moodleLeft []string
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"learners.csv", func(w io.Writer) error { return board.WriteRecordsCSV(w, recs, ws.Katas) }},
		{"learners.json", func(w io.Writer) error { return board.WriteRecordsJSON(w, recs) }},
		{"events.jsonl", func(w io.Writer) error { return board.WriteEventLog(w, events) }},
		{"gradebook-canvas.csv", func(w io.Writer) error { return board.WriteCanvasGradebook(w, rows, cols) }},
		{"gradebook-moodle.csv", func(w io.Writer) (err error) { moodleLeft, err = board.WriteMoodleGradebook(w, rows, cols); return err }},
	}
	for _, file := range files {
		path := filepath.Join(f.out, file.name)
		if err := writeFileWith(path, file.write); err != nil {
			return err
		}
		fmt.Fprintln(errw, loc.T("class.cli.wrote", "Path", path))
	}
	if len(moodleLeft) > 0 {
		warning(errw, loc, i18n.M("class.cli.moodle_left_out", "N", len(moodleLeft), "Names", strings.Join(moodleLeft, ", ")))
	}
	fmt.Fprintln(cmd.OutOrStdout(), loc.T("class.cli.exported", "Learners", loc.N("count.learner", len(recs)), "Code", ws.Code, "Events", len(events), "Dir", f.out))
	return nil
}
