package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/board"
)

// EnvScreenshots names a folder where the browser test leaves its screenshots (for a person
// to look at); unset, they go to the test's temp folder.
const envScreenshots = "KATA_SCREENSHOTS"

// chromium finds a Chromium binary: Debian's chromium package, or another build on PATH.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("KATA_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium is not installed")
	}
	t.Skip("chromium is not installed: apt-get install -y chromium (Debian; .ci/run installs it)")
	return ""
}

// browser is a headless Chromium driven over the Chrome DevTools Protocol: one page target,
// commands sent with ids and answered in order.
type browser struct {
	t    *testing.T
	cmd  *exec.Cmd
	ws   *websocket.Conn
	mu   sync.Mutex
	next int
}

// startBrowser launches headless Chromium with a private profile and connects to its page.
func startBrowser(t *testing.T) *browser {
	bin := chromium(t)
	profile := t.TempDir()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps", "--mute-audio",
		"--user-data-dir="+profile, "--remote-allow-origins=http://127.0.0.1", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--window-size=1280,800", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, cmd: cmd}
	t.Cleanup(b.close)
	// Chromium writes its port and browser path to DevToolsActivePort once it listens.
	var port string
	waitFor(t, "chromium's DevToolsActivePort", func() bool {
		data, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if err != nil {
			return false
		}
		port, _, _ = strings.Cut(string(data), "\n")
		return port != ""
	})
	var targets []struct {
		Type, WebSocketDebuggerURL string
	}
	waitFor(t, "chromium's page target", func() bool {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		targets = nil
		json.NewDecoder(resp.Body).Decode(&targets)
		for _, tg := range targets {
			if tg.Type == "page" {
				return true
			}
		}
		return false
	})
	for _, tg := range targets {
		if tg.Type == "page" {
			ws, err := websocket.Dial(tg.WebSocketDebuggerURL, "", "http://127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			ws.MaxPayloadBytes = 64 << 20
			b.ws = ws
			break
		}
	}
	return b
}

func (b *browser) close() {
	if b.ws != nil {
		b.ws.Close()
	}
	if b.cmd.Process != nil {
		syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		b.cmd.Wait()
	}
}

// call sends one CDP command and returns its result, skipping the events in between.
func (b *browser) call(method string, params any) json.RawMessage {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	id := b.next
	if err := websocket.JSON.Send(b.ws, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		b.t.Fatal(err)
	}
	b.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := websocket.JSON.Receive(b.ws, &msg); err != nil {
			b.t.Fatalf("%s: %v", method, err)
		}
		if msg.ID != id {
			continue
		}
		if msg.Error != nil {
			b.t.Fatalf("%s: %s", method, msg.Error.Message)
		}
		return msg.Result
	}
}

// eval evaluates a JavaScript expression in the page and returns its value as a string.
func (b *browser) eval(expr string) string {
	b.t.Helper()
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
	}
	json.Unmarshal(b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &res)
	return fmt.Sprint(res.Result.Value)
}

// waitText polls the page until expr's value contains want.
func (b *browser) waitText(what, expr, want string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := b.eval(expr)
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: the page never showed %q; %s is %q", what, want, expr, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshot saves the page as a PNG and returns its path.
func (b *browser) screenshot(name string) string {
	b.t.Helper()
	var res struct{ Data string }
	json.Unmarshal(b.call("Page.captureScreenshot", map[string]any{"format": "png"}), &res)
	png, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil || len(png) == 0 {
		b.t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv(envScreenshots)
	if dir == "" {
		dir = b.t.TempDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	return path
}

// TestBoardPageInChromium opens /board in headless Chromium: a learner's event shows up on
// the page live (over the SSE stream), a name with markup shows as text, the live quiz's
// distribution appears, and after the server restarts on the same address the page
// reconnects by itself and shows the next event.
func TestBoardPageInChromium(t *testing.T) {
	b := startBrowser(t)
	r := startRig(t, "", Options{})
	ctx := context.Background()
	b.call("Page.enable", nil)
	b.call("Page.navigate", map[string]any{"url": r.http.URL + workshop.PathBoardPage + "?token=" + r.token})
	b.waitText("the stream connects", "document.body.dataset.state", "live")
	b.waitText("the page redirected, leaving the token out of the address", "location.href", r.http.URL+"/board")
	if strings.Contains(b.eval("location.href"), "token") {
		t.Errorf("the address bar still shows the token: %s", b.eval("location.href"))
	}
	b.waitText("the empty board", "document.getElementById('empty').hidden", "false")

	ana, _ := r.join("Ana <b>&</b>")
	ana.Send(ctx, []workshop.Event{layer("p1", "prompts"), {ID: "v1", Kind: workshop.KindVerdict, Kata: "mini-kata", At: t0,
		Verdict: &workshop.Verdict{Status: "fail", Passed: 2, Failed: 1, Tests: []workshop.TestVerdict{{ID: "f1", Status: "fail", Step: 2, Rules: []string{"retryable"}}}}}})
	b.waitText("Ana's row", "document.getElementById('rows').textContent", "Ana <b>&</b>")
	b.waitText("her layer", "document.getElementById('rows').textContent", "2/5 prompts")
	b.waitText("her grade", "document.getElementById('rows').textContent", "2/3 ✗")
	b.waitText("the rule missed", "document.getElementById('rules').textContent", "retryable")
	if n := b.eval("document.querySelectorAll('#rows b').length"); n != "0" {
		t.Errorf("the learner's name was parsed as markup (%s <b> elements)", n)
	}

	ben, _ := r.join("Ben")
	if _, err := r.class.StartQuiz(ctx, workshop.QuizRequest{Items: []string{"mk-01"}}); err != nil {
		t.Fatal(err)
	}
	b.waitText("the live quiz", "document.getElementById('quiz').textContent", "Flags or prose")
	live := func(c *workshop.Client, id string, opt string) {
		q := r.class.State().Quiz
		c.Send(ctx, []workshop.Event{{ID: id, Kind: workshop.KindAnswer, Kata: "mini-kata", At: t0, Answer: &workshop.Answer{Item: "mk-01", Chosen: []string{opt}, Source: workshop.SourceLive, Quiz: q.ID}}})
	}
	// the stem rendered from Markdown (code as <code>, no backticks), the timer, who is waiting
	b.waitText("the stem's code", "document.querySelector('#quiz .stem code').textContent", "isRetryable: false")
	if txt := b.eval("document.querySelector('#quiz .stem').textContent"); strings.Contains(txt, "`") {
		t.Errorf("the stem shows raw Markdown: %q", txt)
	}
	b.waitText("the timer", "document.querySelector('#quiz .timer').textContent", "open for 0:")
	b.waitText("who has not answered", "document.querySelector('#quiz .waiting').textContent", "Ben")
	live(ana, "q1", "b")
	b.waitText("Ana answered, Ben not yet", "document.querySelector('#quiz .waiting').textContent", "Not done yet: Ben")
	live(ben, "q2", "b")
	b.waitText("the distribution", "document.querySelector('#quiz [data-option=b]').textContent", "2")
	b.waitText("everyone answered", "document.getElementById('quiz').textContent", "Everyone present has answered every item.")
	if _, err := r.class.Reveal(ctx); err != nil {
		t.Fatal(err)
	}
	b.waitText("the rationale after the reveal", "document.getElementById('quiz').textContent", "revealed")
	b.waitText("the key", "document.querySelector('#quiz .key').dataset.option", "b")
	shot := b.screenshot("board-live-quiz.png")
	t.Logf("screenshot: %s", shot)
	// At 420 pixels the quiz panel stacks below the learners table, never over it.
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 420, "height": 900, "deviceScaleFactor": 1, "mobile": true})
	b.waitText("one column at 420 px", "(() => { const a = document.getElementById('learners').getBoundingClientRect(), q = document.getElementById('quiz').getBoundingClientRect(); return String(q.top >= a.bottom - 1); })()", "true")
	t.Logf("screenshot: %s", b.screenshot("board-live-quiz-420.png"))
	b.call("Emulation.clearDeviceMetricsOverride", nil)

	// Restart the server on the same address: the page reconnects and follows again.
	r.stop()
	b.waitText("the page notices the drop", "document.body.dataset.state", "down")
	r.start(Options{})
	b.waitText("the page reconnects", "document.body.dataset.state", "live")
	ben.Base = r.http.URL
	ben.Send(ctx, []workshop.Event{layer("b9", "templates")})
	b.waitText("an event after the restart", "document.getElementById('rows').textContent", "5/5 templates")
	seq := b.eval("document.body.dataset.seq")
	if n, _ := strconv.Atoi(seq); int64(n) != r.class.View().Seq {
		t.Errorf("the page is at seq %s, the board at %d", seq, r.class.View().Seq)
	}
	t.Logf("screenshot: %s", b.screenshot("board-after-restart.png"))
	// locked: the page stops advertising the join line
	if _, err := r.class.Lock(ctx, true); err != nil {
		t.Fatal(err)
	}
	ben.Send(ctx, []workshop.Event{layer("b10", "knowledge")})
	b.waitText("the join line gone", "document.getElementById('join').textContent", "takes no new learner")
}

// TestBoardPageInRussian opens /board of a server whose instructor reads Russian: <html lang>,
// the headings, the counts (CLDR forms by Intl.PluralRules: 1 участник, 2 участника), the
// pacing line, the live quiz and why a learner needs attention are Russian; names and rule
// ids are not translated.
func TestBoardPageInRussian(t *testing.T) {
	b := startBrowser(t)
	r := startRig(t, "", Options{Loc: i18n.New("ru"), Board: board.Options{Repeats: 1}})
	ctx := context.Background()
	b.call("Page.enable", nil)
	b.call("Page.navigate", map[string]any{"url": r.http.URL + workshop.PathBoardPage + "?token=" + r.token})
	b.waitText("the stream connects", "document.body.dataset.state", "live")
	b.waitText("the language", "document.documentElement.lang", "ru")
	b.waitText("the title", "document.title", "воркшоп kata "+r.class.Code())
	b.waitText("the connection", "document.getElementById('conn').textContent", "в эфире")
	b.waitText("the headings", "document.querySelector('aside').textContent", "Нужно внимание")
	b.waitText("no learner yet", "document.getElementById('empty').textContent", "Пока никто не подключился.")
	b.waitText("the pacing", "document.getElementById('pacing').textContent", "открыто слоёв: 1 из 5 (до knowledge) · шагов задания: 1 из 2")
	b.waitText("the empty lists", "document.getElementById('attention').textContent", "никто")

	ana, _ := r.join("Ana")
	ana.Send(ctx, []workshop.Event{{ID: "v1", Kind: workshop.KindVerdict, Kata: "mini-kata", At: t0,
		Verdict: &workshop.Verdict{Status: "fail", Passed: 2, Failed: 1, Tests: []workshop.TestVerdict{{ID: "f1", Status: "fail", Rules: []string{"retryable"}}}}}})
	b.waitText("one learner", "document.getElementById('count').textContent", "1 участник")
	b.waitText("the rule missed", "document.getElementById('rules').textContent", "retryable — 1 участник")
	b.waitText("why Ana needs attention", "document.getElementById('attention').textContent", "Ana: mini-kata: правило retryable нарушено 1 раз подряд")
	r.join("Ben")
	b.waitText("two learners", "document.getElementById('count').textContent", "2 участника")
	if _, err := r.class.StartQuiz(ctx, workshop.QuizRequest{Items: []string{"mk-01"}}); err != nil {
		t.Fatal(err)
	}
	b.waitText("the live quiz", "document.getElementById('quiz').textContent", "Живой квиз · mini-kata · идут ответы")
	b.waitText("its answers", "document.getElementById('quiz').textContent", "0 ответов")
	if _, err := r.class.Reveal(ctx); err != nil {
		t.Fatal(err)
	}
	b.waitText("the reveal", "document.getElementById('quiz').textContent", "ответы показаны")
	t.Logf("screenshot: %s", b.screenshot("board-ru.png"))
}
