package board

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
)

// Record is what a workshop recorded of one learner, for a gradebook (kata class export): the
// learner, each kata's work, and the mock exams.
type Record struct {
	Learner string `json:"learner"`
	Name    string `json:"name"`
	// StudentID and Email are the roster's, when one was given and names the learner.
	StudentID string    `json:"student_id,omitempty"`
	Email     string    `json:"email,omitempty"`
	Joined    time.Time `json:"joined"`
	Left      time.Time `json:"left,omitzero"`
	// ExamBest is the best scaled score (100–1000) of the learner's mock exams, ExamPassed
	// whether one reached the pass mark, Exams how many were submitted.
	ExamBest   int  `json:"exam_best,omitempty"`
	ExamPassed bool `json:"exam_passed,omitempty"`
	Exams      int  `json:"exams,omitempty"`
	// TimeOnTask is from the learner's first event to their last (Received, the server's
	// clock).
	TimeOnTask time.Duration `json:"time_on_task_ns"`
	Katas      []KataRecord  `json:"katas"`

	first, last time.Time
}

// KataRecord is a learner's work in one kata.
type KataRecord struct {
	Kata string `json:"kata"`
	// Layers are the layers read, in the order first opened.
	Layers []string `json:"layers,omitempty"`
	// Answers and Right count the exam items answered in practice and mock exams; Live and
	// LiveRight those of the instructor's live quizzes; Drills and DrillsRight the trap drills.
	Answers     int `json:"answers"`
	Right       int `json:"right"`
	Live        int `json:"live_answers"`
	LiveRight   int `json:"live_right"`
	Drills      int `json:"drills"`
	DrillsRight int `json:"drills_right"`
	// Attempts counts the grades; the last one's status, tests passed of all, points of the
	// kata's (docs/packets.md#points) and broken rules follow; BestPoints is the most points of
	// one grade.
	Attempts   int      `json:"attempts"`
	Status     string   `json:"status,omitempty"`
	Passed     int      `json:"passed"`
	Tests      int      `json:"tests"`
	Points     float64  `json:"points"`
	MaxPoints  float64  `json:"max_points"`
	BestPoints float64  `json:"best_points"`
	Rules      []string `json:"rules,omitempty"`
	// FirstPass is how long after joining the learner's first passing grade came (0: none).
	FirstPass time.Duration `json:"first_pass_ns,omitempty"`
}

// Export folds a workshop's events (in order) into one Record per learner, in the order
// they joined, scoring grades against packets (the workshop's katas).
func Export(events []workshop.Event, packets []*katas.Packet) []Record {
	var out []*Record
	byID := map[string]*Record{}
	kata := func(r *Record, id string) *KataRecord {
		for i := range r.Katas {
			if r.Katas[i].Kata == id {
				return &r.Katas[i]
			}
		}
		return nil
	}
	for _, e := range events {
		if e.Learner == "" {
			continue
		}
		r := byID[e.Learner]
		if r == nil {
			if e.Kind != workshop.KindJoined {
				continue
			}
			r = &Record{Learner: e.Learner}
			for _, p := range packets {
				r.Katas = append(r.Katas, KataRecord{Kata: p.ID, MaxPoints: grader.ScoreOf(p, &grader.Report{}).Max})
			}
			byID[e.Learner] = r
			out = append(out, r)
		}
		at := e.Received
		if at.IsZero() {
			at = e.At
		}
		if r.first.IsZero() {
			r.first = at
		}
		r.last = at
		switch e.Kind {
		case workshop.KindJoined:
			r.Name, r.Joined = e.Name, at
		case workshop.KindLeft:
			r.Left = at
		case workshop.KindLayer:
			if k := kata(r, e.Kata); k != nil && !slices.Contains(k.Layers, e.Layer) {
				k.Layers = append(k.Layers, e.Layer)
			}
		case workshop.KindAnswer, workshop.KindDrill:
			k := kata(r, e.Kata)
			if k == nil || e.Answer == nil {
				continue
			}
			right := 0
			if e.Answer.Correct {
				right = 1
			}
			switch {
			case e.Kind == workshop.KindDrill:
				k.Drills, k.DrillsRight = k.Drills+1, k.DrillsRight+right
			case e.Answer.Source == workshop.SourceLive:
				k.Live, k.LiveRight = k.Live+1, k.LiveRight+right
			default:
				k.Answers, k.Right = k.Answers+1, k.Right+right
			}
		case workshop.KindExam:
			if e.Exam != nil {
				r.Exams++
				r.ExamBest = max(r.ExamBest, e.Exam.Scaled)
				r.ExamPassed = r.ExamPassed || e.Exam.Passed
			}
		case workshop.KindVerdict:
			k := kata(r, e.Kata)
			if k == nil || e.Verdict == nil {
				continue
			}
			v := e.Verdict
			k.Attempts++
			k.Status, k.Passed, k.Tests, k.Rules = v.Status, v.Passed, v.Total(), nil
			rep := &grader.Report{Status: v.Status}
			for _, t := range v.Tests {
				rep.Tests = append(rep.Tests, grader.TestResult{ID: t.ID, Status: t.Status, Step: t.Step})
				for _, rl := range t.Rules {
					if !slices.Contains(k.Rules, rl) {
						k.Rules = append(k.Rules, rl)
					}
				}
			}
			if i := slices.IndexFunc(packets, func(p *katas.Packet) bool { return p.ID == e.Kata }); i >= 0 {
				s := grader.ScoreOf(packets[i], rep)
				k.Points, k.MaxPoints = s.Points, s.Max
				k.BestPoints = max(k.BestPoints, s.Points)
			}
			if v.Status == grader.StatusPass && k.FirstPass == 0 && !r.Joined.IsZero() {
				k.FirstPass = max(at.Sub(r.Joined), time.Nanosecond)
			}
		}
	}
	recs := make([]Record, len(out))
	for i, r := range out {
		r.TimeOnTask = r.last.Sub(r.first)
		recs[i] = *r
	}
	return recs
}

// csvCell keeps a text cell from being read as a formula by a spreadsheet (a learner chose
// their name): one starting with '=', '+', '-', '@', a tab or a carriage return gets a leading
// apostrophe.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// minutes words a duration in whole minutes, for a spreadsheet.
func minutes(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprint(int(d.Round(time.Minute).Minutes()))
}

// WriteRecordsCSV writes one row per learner: who (name, learner id, student id, email), when
// (joined, left, time on task in minutes), the mock exams, and for each kata (its id before
// each column name when the workshop has several) the layers read, the answers, the last
// grade and its points, the best points, the attempts, the first pass in minutes and the
// rules the last grade broke.
func WriteRecordsCSV(w io.Writer, recs []Record, katas []string) error {
	cw := csv.NewWriter(w)
	head := []string{"name", "learner", "student_id", "email", "joined", "left", "time_on_task_min", "exams", "exam_best", "exam_passed"}
	cols := []string{"layers", "answers", "right", "live_answers", "live_right", "drills", "drills_right", "attempts", "status", "passed", "tests",
		"points", "max_points", "best_points", "first_pass_min", "rules"}
	for _, k := range katas {
		for _, c := range cols {
			if len(katas) > 1 {
				c = k + " " + c
			}
			head = append(head, c)
		}
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	stamp := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}
	for _, r := range recs {
		row := []string{csvCell(r.Name), r.Learner, csvCell(r.StudentID), csvCell(r.Email), stamp(r.Joined), stamp(r.Left), minutes(r.TimeOnTask),
			fmt.Sprint(r.Exams), fmt.Sprint(r.ExamBest), fmt.Sprint(r.ExamPassed)}
		for _, id := range katas {
			var k KataRecord
			for _, kr := range r.Katas {
				if kr.Kata == id {
					k = kr
				}
			}
			row = append(row, strings.Join(k.Layers, " "), fmt.Sprint(k.Answers), fmt.Sprint(k.Right), fmt.Sprint(k.Live), fmt.Sprint(k.LiveRight),
				fmt.Sprint(k.Drills), fmt.Sprint(k.DrillsRight), fmt.Sprint(k.Attempts), k.Status, fmt.Sprint(k.Passed), fmt.Sprint(k.Tests),
				grader.FormatPoints(k.Points), grader.FormatPoints(k.MaxPoints), grader.FormatPoints(k.BestPoints), minutes(k.FirstPass), strings.Join(k.Rules, " "))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteRecordsJSON writes the records as indented JSON.
func WriteRecordsJSON(w io.Writer, recs []Record) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(recs)
}

// WriteEventLog writes events as JSON lines, one event a line, as the store keeps them.
func WriteEventLog(w io.Writer, events []workshop.Event) error {
	enc := json.NewEncoder(w)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}

// GradebookColumn is one graded column of a gradebook: its header, its points possible and
// each row's value by the row's key. Values and Max are numbers as grader.FormatPoints writes
// them (a point before any decimals, no thousands separator), or "" for no grade.
type GradebookColumn struct {
	Header string
	Max    string
	Values map[string]string
}

// GradebookRow is one student of a gradebook.
type GradebookRow struct {
	// Key joins the row to the columns' values (a student id).
	Key, Name, StudentID, Email string
}

// WriteCanvasGradebook writes a gradebook CSV for Canvas's Gradebook import (Canvas
// Community, "How do I import grades in the Gradebook?"; docs/workshop.md#gradebook): UTF-8
// without a byte-order mark, RFC 4180 quoting; the header Student, ID, SIS User ID, SIS Login
// ID, Section, then one column per graded column — Canvas takes every column after Section
// for an assignment, so there is nothing else; then a "Points Possible" row giving each
// column's points (the points of an assignment the import creates); then one row per
// student, whom Canvas finds by the SIS User ID (the roster's student id), else by the name.
// The Canvas user ID column is left empty: kata cannot know it.
func WriteCanvasGradebook(w io.Writer, rows []GradebookRow, cols []GradebookColumn) error {
	cw := csv.NewWriter(w)
	head := []string{"Student", "ID", "SIS User ID", "SIS Login ID", "Section"}
	pp := []string{"Points Possible", "", "", "", ""}
	for _, c := range cols {
		head, pp = append(head, c.Header), append(pp, c.Max)
	}
	cw.Write(head)
	cw.Write(pp)
	for _, r := range rows {
		row := []string{csvCell(r.Name), "", csvCell(r.StudentID), "", ""}
		for _, c := range cols {
			row = append(row, c.Values[r.Key])
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// WriteMoodleGradebook writes a gradebook CSV for Moodle's CSV grade import (MoodleDocs,
// "Grade import"; docs/workshop.md#gradebook): UTF-8 without a byte-order mark, comma
// separated; the header ID number, Email address (only when every row written has one),
// Full name, then one column per graded column; one row per student who has a student id.
// Moodle stops the whole import at a row whose mapped user field is empty or unknown, so the
// students without a student id are not written: it returns their names.
func WriteMoodleGradebook(w io.Writer, rows []GradebookRow, cols []GradebookColumn) (left []string, err error) {
	var keep []GradebookRow
	emails := true
	for _, r := range rows {
		if r.StudentID == "" {
			left = append(left, r.Name)
			continue
		}
		keep = append(keep, r)
		emails = emails && r.Email != ""
	}
	cw := csv.NewWriter(w)
	head := []string{"ID number"}
	if emails {
		head = append(head, "Email address")
	}
	head = append(head, "Full name")
	for _, c := range cols {
		head = append(head, c.Header)
	}
	cw.Write(head)
	for _, r := range keep {
		row := []string{csvCell(r.StudentID)}
		if emails {
			row = append(row, csvCell(r.Email))
		}
		row = append(row, csvCell(r.Name))
		for _, c := range cols {
			row = append(row, c.Values[r.Key])
		}
		cw.Write(row)
	}
	cw.Flush()
	return left, cw.Error()
}
