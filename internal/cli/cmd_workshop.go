package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/adrg/xdg"
	"github.com/spf13/cobra"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/internal/record"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui"
	uiboard "github.com/kata-mcp/kata/ui/board"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/board"
	"github.com/kata-mcp/kata/workshop/learner"
	"github.com/kata-mcp/kata/workshop/server"
)

func newServeCmd() *cobra.Command {
	var (
		cfg       server.Config
		open      server.Opening
		idle      time.Duration
		noBoard   bool
		credsPath string
	)
	cmd := &cobra.Command{
		Use:   "serve --kata ID...",
		Short: "Run a live workshop: learners join, their progress shows on your board, you pace the class",
		Long: "serve opens a workshop of the katas named (or resumes the open one of the same katas) and\n" +
			"prints the line learners type to join. On a terminal it shows the live board, with keys to\n" +
			"open layers and task steps and to run a live quiz; the same board is a web page at /board\n" +
			"(the address printed, with your instructor token). Without a terminal it runs headless and\n" +
			"logs to stderr. Everything is kept in --db (SQLite by default; postgres://… for several\n" +
			"replicas); restarting loses nothing, and learners and boards reconnect by themselves.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := loadLibrary(cmd)
			if err != nil {
				return err
			}
			out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
			loc := i18n.New(userLocale(cmd))
			tui := !noBoard && isTerminal(out) && isTerminal(os.Stdin)
			var logw io.Writer = errw
			logPath := filepath.Join(xdg.StateHome, "kata", "serve.log")
			if tui {
				// The board owns the terminal: the log goes to a file.
				os.MkdirAll(filepath.Dir(logPath), 0o700)
				f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
				if err != nil {
					return err
				}
				defer f.Close()
				logw = f
			}
			cfg.Opening = open
			cfg.Options.Log = logw
			cfg.Options.Board = board.Options{Idle: idle, RuleText: ruleTexts(lib, cfg.Katas)}
			cfg.Options.Loc = i18n.New(userLocale(cmd)) // the web board in the instructor's language
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if i, err := workshop.LoadInstructor(credsPath); err == nil && !cfg.New {
				cfg.Token = i.Token // kept when it is this workshop's: a restart keeps the token
			}
			run, err := server.Start(ctx, lib, cfg)
			if err != nil {
				return err
			}
			defer func() {
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				run.Stop(sctx)
			}()
			if err := workshop.SaveInstructor(credsPath, workshop.Instructor{Base: run.Base, Code: run.Workshop.Code(), Token: run.Token}); err != nil {
				fmt.Fprintln(errw, loc.T("out.serve_creds_warning", "Error", err))
			}
			joinLine := "kata join " + run.JoinURL() + " --name " + loc.T("out.your_name")
			opened := "out.serve_resumed"
			if run.Created {
				opened = "out.serve_opened"
			}
			fmt.Fprintln(out, loc.T(opened, "Code", run.Workshop.Code(), "Katas", strings.Join(run.Workshop.Katas(), ", "), "Addr", run.Addr, "Store", run.Store()))
			fmt.Fprintln(out, loc.T("out.serve_join_with", "Line", joinLine))
			// The token never goes on a screen the class may see: the terminal board shows the
			// page's address, the token is in the instructor file (0600), and only a headless
			// server writes the address with it, once, to stderr (its log).
			fmt.Fprintln(out, loc.T("out.serve_board", "URL", run.BoardPage()))
			fmt.Fprintln(out, loc.T("out.serve_board_token", "File", credsPath))
			if !tui {
				fmt.Fprintln(errw, loc.T("out.serve_board_with_token", "URL", run.BoardURL()))
				fmt.Fprintln(out, loc.T("out.serve_headless"))
				select {
				case <-ctx.Done():
				case err := <-run.Err():
					return err
				}
				if run.Workshop.State().Closed {
					fmt.Fprintln(out, loc.T("out.serve_stopped_closed"))
				} else {
					fmt.Fprintln(out, loc.T("out.serve_stopped"))
				}
				return nil
			}
			style, _ := ui.Theme("", os.Getenv)
			errc := make(chan error, 1)
			go func() {
				errc <- uiboard.Run(ctx, run.Workshop, uiboard.Options{JoinLine: joinLine, BoardURL: run.BoardPage(), NoColor: ui.NoColor(os.Getenv), Light: style == "light", Loc: loc})
			}()
			select {
			case err = <-errc:
			case err = <-run.Err():
			}
			if run.Workshop.State().Closed {
				fmt.Fprintln(out, loc.T("out.serve_stopped_closed"))
			} else {
				fmt.Fprintln(out, loc.T("out.serve_stopped_log", "Log", logPath))
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&cfg.Katas, "kata", nil, "the workshop's katas (repeat, or separate with commas)")
	f.StringVar(&cfg.Addr, "addr", ":7878", "address to listen on")
	f.StringVar(&cfg.DB, "db", workshop.DefaultDB(), "the store: an SQLite file, or postgres://user@host/db for several replicas")
	f.StringVar(&cfg.TLSCert, "tls-cert", "", "serve HTTPS with this PEM certificate (with --tls-key)")
	f.StringVar(&cfg.TLSKey, "tls-key", "", "the certificate's PEM private key")
	f.StringVar(&cfg.PublicURL, "public-url", "", "the address learners reach the server at, when it differs (a reverse proxy: https://kata.example.org)")
	f.BoolVar(&cfg.Options.TrustProxy, "trust-proxy", false, "take client addresses from X-Forwarded-For (only behind a reverse proxy that sets it)")
	f.BoolVar(&cfg.New, "new", false, "close the open workshop of these katas and start a new one, with a new join code")
	f.IntVar(&open.Layers, "open-layers", 1, "layers open to learners in a new workshop (0: all)")
	f.IntVar(&open.Steps, "open-steps", 1, "task steps open in a new workshop (0: all)")
	f.IntVar(&cfg.Options.MaxLearners, "max-learners", server.DefaultMaxLearners, "the most learners the workshop takes")
	f.IntVar(&cfg.Options.Limits.SeatsPerAddress, "seats-per-address", server.DefaultSeatsPerAddress, "the most learners one address may join (a class behind one NAT address needs its size; -1: no cap)")
	f.DurationVar(&idle, "idle", board.DefaultIdle, "flag a learner who made no progress for this long")
	f.BoolVar(&noBoard, "headless", false, "no terminal board even on a terminal (log to stderr)")
	f.StringVar(&credsPath, "instructor-file", workshop.DefaultInstructorFile(), "where to leave the server's address and your token for kata class")
	cmd.MarkFlagRequired("kata")
	return cmd
}

// ruleTexts maps the rule ids the katas grade to their statements, for the board.
func ruleTexts(lib *katas.Library, ids []string) map[string]string {
	out := map[string]string{}
	for _, id := range ids {
		if p, ok := lib.Get(id); ok {
			for _, r := range grader.RulesFor(p) {
				out[string(r.ID)] = r.Statement
			}
		}
	}
	return out
}

func newJoinCmd() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "join URL --name NAME",
		Short: "Join an instructor's workshop: your progress shows on their board",
		Long: "join records the workshop (the address kata serve printed) in your progress file. From\n" +
			"then on the app reports the layers you open, your quiz and exam answers and your grades\n" +
			"(each test's result and rule, never your code) — queued while the server cannot be\n" +
			"reached — and follows your instructor's pacing and live quizzes. kata leave stops it.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withAgent(func(_ *progress.Store, a *learner.Agent) error {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				m, err := a.Join(ctx, args[0], name)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), i18n.New(userLocale(cmd)).T("out.joined", "Code", m.Code, "Base", m.Base, "Name", m.Name, "Katas", strings.Join(m.Katas, ", ")))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the name your instructor sees")
	cmd.MarkFlagRequired("name")
	return cmd
}

func newLeaveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "leave",
		Short: "Leave the workshop you joined (back to self-study)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withAgent(func(st *progress.Store, a *learner.Agent) error {
				m, err := st.Membership()
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				loc := i18n.New(userLocale(cmd))
				if m == nil {
					fmt.Fprintln(out, loc.T("cli.no_workshop"))
					return nil
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				dropped, err := a.Leave(ctx)
				if err != nil {
					return err
				}
				if dropped > 0 {
					fmt.Fprintln(out, loc.N("cli.left_dropped", dropped, "Code", m.Code))
				} else {
					fmt.Fprintln(out, loc.T("cli.left", "Code", m.Code))
				}
				return nil
			})
		},
	}
}

// sendQueued sends what the learner's progress store has queued for the workshop they joined
// (for at most record.FlushTimeout), so a learner who only uses the command line has their
// progress on the board without opening the app; a failure is a warning on errw.
func sendQueued(errw io.Writer, loc *i18n.Localizer) {
	path, err := progress.DefaultPath()
	if err != nil {
		return
	}
	if _, err := os.Stat(path); err != nil {
		return // no store yet: nothing is queued, and a read-only command creates none
	}
	st, err := progress.Open(path)
	if err != nil {
		return
	}
	defer st.Close()
	m, err := st.Membership()
	if err != nil || m == nil {
		return
	}
	if n, err := st.Queued(); err != nil || n == 0 {
		return
	}
	a := learner.New(st, learner.Options{})
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), record.FlushTimeout)
	defer cancel()
	if err := a.Flush(ctx); err != nil {
		fmt.Fprintln(errw, loc.T("out.queue_waits", "Code", m.Code, "Error", err))
	}
}

// withAgent runs fn with the progress store and a workshop agent over it (not started: no
// background sending beyond what fn asks).
func withAgent(fn func(st *progress.Store, a *learner.Agent) error) error {
	path, err := progress.DefaultPath()
	if err != nil {
		return err
	}
	st, err := progress.Open(path)
	if err != nil {
		return err
	}
	defer st.Close()
	a := learner.New(st, learner.Options{})
	defer a.Close()
	return fn(st, a)
}

// addLiveClassCmds adds the live workshop's instructor commands to `kata class`.
func addLiveClassCmds(class *cobra.Command) {
	// --server and --token belong to the live commands alone, not to kata class grade.
	var server, token string
	liveFlags := func(c *cobra.Command) *cobra.Command {
		c.Flags().StringVar(&server, "server", "", "the kata serve address (default: the one kata serve left in the instructor file)")
		c.Flags().StringVar(&token, "token", "", "the instructor token (default: the instructor file's; also $KATA_INSTRUCTOR_TOKEN)")
		return c
	}
	client := func() (*workshop.Client, error) {
		if token == "" {
			token = os.Getenv("KATA_INSTRUCTOR_TOKEN")
		}
		if server != "" && token != "" {
			return &workshop.Client{Base: strings.TrimRight(server, "/"), Token: token}, nil
		}
		i, err := workshop.LoadInstructor(workshop.DefaultInstructorFile())
		if err != nil {
			return nil, err
		}
		c := &workshop.Client{Base: i.Base, Token: i.Token}
		if server != "" {
			c.Base = strings.TrimRight(server, "/")
		}
		if token != "" {
			c.Token = token
		}
		return c, nil
	}
	ctx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 30*time.Second)
	}

	var kata string
	var step int
	open := &cobra.Command{
		Use:   "open [LAYER]",
		Short: "Open layers (up to LAYER, a name or number) or task steps (--step N) for the class",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && step == 0 {
				return fmt.Errorf("name a layer (%s, or its number) or a task step with --step N", strings.Join(katas.LayerNames, ", "))
			}
			req := workshop.PacingRequest{Kata: kata, Steps: step}
			if len(args) == 1 {
				n, err := layerNumber(args[0])
				if err != nil {
					return err
				}
				req.Layers = n
			}
			c, err := client()
			if err != nil {
				return err
			}
			cx, cancel := ctx()
			defer cancel()
			st, err := c.Pace(cx, req)
			if err != nil {
				return err
			}
			writePacing(cmd.OutOrStdout(), st, i18n.New(userLocale(cmd)))
			return nil
		},
	}
	open.Flags().StringVar(&kata, "kata", "", "only this kata (default: every kata of the workshop)")
	open.Flags().IntVar(&step, "step", 0, "open task steps 1 to N")

	var count int
	var quizKata string
	quiz := &cobra.Command{
		Use:   "quiz [ITEM...]",
		Short: "Start a live quiz: the items named, or the kata's next --count items not asked yet",
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			cx, cancel := ctx()
			defer cancel()
			q, err := c.StartQuiz(cx, workshop.QuizRequest{Kata: quizKata, Items: args, Count: count})
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), i18n.New(userLocale(cmd)).T("out.quiz_started", "ID", q.ID, "Items", strings.Join(q.Items, ", "), "Kata", q.Kata))
			return nil
		},
	}
	quiz.Flags().StringVar(&quizKata, "kata", "", "the kata (default: the workshop's first)")
	quiz.Flags().IntVar(&count, "count", 1, "how many items, when none is named")

	// withArg is an instructor command of one argument ("remove NAME"): the workshop's client, a
	// deadline, and the argument; simple is one of none.
	withArg := func(use, short string, fn func(ctx context.Context, c *workshop.Client, out io.Writer, loc *i18n.Localizer, arg string) error) *cobra.Command {
		args := cobra.NoArgs
		if strings.Contains(use, " ") {
			args = cobra.ExactArgs(1)
		}
		return &cobra.Command{Use: use, Short: short, Args: args, RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			cx, cancel := ctx()
			defer cancel()
			return fn(cx, c, cmd.OutOrStdout(), i18n.New(userLocale(cmd)), strings.Join(args, ""))
		}}
	}
	simple := func(use, short string, fn func(ctx context.Context, c *workshop.Client, out io.Writer, loc *i18n.Localizer) error) *cobra.Command {
		return withArg(use, short, func(ctx context.Context, c *workshop.Client, out io.Writer, loc *i18n.Localizer, _ string) error {
			return fn(ctx, c, out, loc)
		})
	}
	var revealLib *katas.Library
	reveal := simple("reveal", "Reveal the live quiz's key, rationales and answer distribution to everyone", func(ctx context.Context, c *workshop.Client, out io.Writer, loc *i18n.Localizer) error {
		q, err := c.RevealQuiz(ctx)
		if err != nil {
			return err
		}
		writeReveal(out, q, revealLib, loc)
		return nil
	})
	reveal.PreRun = func(cmd *cobra.Command, _ []string) { revealLib, _ = loadLibrary(cmd) }
	end := simple("end-quiz", "End the live quiz", func(ctx context.Context, c *workshop.Client, out io.Writer, loc *i18n.Localizer) error {
		_, err := c.CloseQuiz(ctx)
		if err == nil {
			fmt.Fprintln(out, loc.T("out.quiz_over"))
		}
		return err
	})
	closeCmd := simple("close", "Close the workshop: its join code expires and learners' events are refused", func(ctx context.Context, c *workshop.Client, out io.Writer, loc *i18n.Localizer) error {
		st, err := c.CloseWorkshop(ctx)
		if err == nil {
			fmt.Fprintln(out, loc.T("out.workshop_closed", "Code", st.Code))
		}
		return err
	})
	boardURL := &cobra.Command{
		Use:   "board-url",
		Short: "Print the web board's address with your instructor token (for your own screen: the token lets anyone drive the class)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := client()
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), c.Base+workshop.PathBoardPage+"?token="+c.Token)
			return nil
		},
	}
	var unlock bool
	lock := simple("lock", "Lock the workshop: no new learner may join (those in it stay); --unlock to let them in again", func(ctx context.Context, c *workshop.Client, out io.Writer, loc *i18n.Localizer) error {
		st, err := c.Lock(ctx, !unlock)
		if err == nil {
			key := "out.workshop_locked"
			if !st.Locked {
				key = "out.workshop_unlocked"
			}
			fmt.Fprintln(out, loc.T(key))
		}
		return err
	})
	lock.Flags().BoolVar(&unlock, "unlock", false, "let new learners join again")
	remove := withArg("remove NAME", "Remove a learner from the workshop by the name the board shows: their token stops working (lock the workshop to keep them out)", func(ctx context.Context, c *workshop.Client, out io.Writer, loc *i18n.Localizer, name string) error {
		r, err := c.Remove(ctx, name)
		if err == nil {
			fmt.Fprintln(out, loc.T("out.learner_removed", "Name", r.Name))
		}
		return err
	})
	say := withArg("say MESSAGE", "Show a message on every learner's screen", func(ctx context.Context, c *workshop.Client, out io.Writer, loc *i18n.Localizer, message string) error {
		_, err := c.Say(ctx, message)
		if err == nil {
			fmt.Fprintln(out, loc.T("out.said"))
		}
		return err
	})
	for _, c := range []*cobra.Command{open, quiz, reveal, end, closeCmd, boardURL, lock, remove, say} {
		class.AddCommand(liveFlags(c))
	}
}

// layerNumber reads a layer given by name ("examples") or number ("3").
func layerNumber(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > len(katas.LayerNames) {
			return 0, fmt.Errorf("layer %d: layers are numbered 1 to %d", n, len(katas.LayerNames))
		}
		return n, nil
	}
	if i := slices.Index(katas.LayerNames, s); i >= 0 {
		return i + 1, nil
	}
	return 0, fmt.Errorf("unknown layer %q (layers: %s)", s, strings.Join(katas.LayerNames, ", "))
}

// writePacing prints what is open of each kata, in loc's language.
func writePacing(w io.Writer, st *workshop.State, loc *i18n.Localizer) {
	for _, id := range slices.Sorted(maps.Keys(st.Pacing)) {
		p := st.Pacing[id]
		fmt.Fprintln(w, loc.T("out.pacing", "Kata", id, "Layers", p.Layers, "Steps", p.Steps))
	}
}

// writeReveal prints a revealed quiz as a table: one row per item, how many learners chose
// each option (the keyed ones marked *), and how many answered.
func writeReveal(w io.Writer, q *workshop.Quiz, lib *katas.Library, loc *i18n.Localizer) {
	var p *katas.Packet
	if lib != nil {
		p, _ = lib.Get(q.Kata)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, loc.T("out.reveal_head"))
	for _, id := range q.Items {
		dist := q.Distribution[id]
		opts := slices.Sorted(maps.Keys(dist))
		var keys []string
		if p != nil {
			for _, it := range p.Items {
				if it.ID == id {
					keys = it.Keys()
					opts = nil
					for _, o := range it.Options {
						opts = append(opts, o.ID)
					}
				}
			}
		}
		var cells []string
		n := 0
		for _, o := range opts {
			mark := ""
			if slices.Contains(keys, o) {
				mark = "*"
			}
			cells = append(cells, fmt.Sprintf("%s%s %d", o, mark, dist[o]))
			n += dist[o]
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\n", id, strings.Join(cells, "  "), n)
	}
	tw.Flush()
	fmt.Fprintln(w, loc.T("out.reveal_key"))
}
