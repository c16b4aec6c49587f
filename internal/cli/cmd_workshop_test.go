package cli

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/board"
)

// serveProc is a `kata serve` running headless in a subprocess.
type serveProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	out     []string
	lines   chan string
	joinURL string
}

// startServe runs bin serve with args in env and waits for its join line.
func startServe(t *testing.T, bin string, env []string, args ...string) *serveProc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--headless"}, args...)...)
	cmd.Env = env
	cmd.Stdin = nil
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProc{t: t, cmd: cmd, lines: make(chan string, 100)}
	t.Cleanup(func() { p.stop() })
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	re := regexp.MustCompile(`kata join (\S+) --name`)
	deadline := time.After(30 * time.Second)
	for p.joinURL == "" {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("kata serve ended early:\n%s", strings.Join(p.out, "\n"))
			}
			p.out = append(p.out, l)
			if m := re.FindStringSubmatch(l); m != nil {
				p.joinURL = m[1]
			}
		case <-deadline:
			t.Fatalf("kata serve printed no join line:\n%s", strings.Join(p.out, "\n"))
		}
	}
	return p
}

// stop sends SIGTERM and returns the rest of the output; a second call does nothing.
func (p *serveProc) stop() string {
	if p.cmd.ProcessState != nil {
		return ""
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	var rest []string
	for l := range p.lines {
		rest = append(rest, l)
	}
	if err := p.cmd.Wait(); err != nil {
		p.t.Errorf("kata serve after SIGTERM: %v", err)
	}
	return strings.Join(rest, "\n")
}

// runBin runs the binary with args in env and returns its output, failing on a non-zero exit.
func runBin(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kata %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestLiveWorkshop runs the live workshop's commands from one build of the binary.
func TestLiveWorkshop(t *testing.T) {
	t.Parallel() // runs its own kata binary in folders of its own: nothing shared with other tests
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildKata(t, t.TempDir())
	t.Run("ServeJoinClassAndRestart", func(t *testing.T) { serveJoinClassAndRestart(t, bin) })
	t.Run("TLS", func(t *testing.T) { serveTLS(t, bin) })
	t.Run("InTmux", func(t *testing.T) { workshopInTmux(t, bin) })
}

// serveJoinClassAndRestart drives the commands as an instructor and a learner would:
// serve headless, join, open a layer, grade (the verdict reaches the board), stop and
// start again (the same workshop, nothing lost).
func serveJoinClassAndRestart(t *testing.T, bin string) {
	tmp := t.TempDir()
	env := append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(tmp, "data"), "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "NO_COLOR=1")
	ana := append(env[:len(env):len(env)], "KATA_STATE="+filepath.Join(tmp, "ana.db"))

	srv := startServe(t, bin, env, "--kata", "mcp-structured-errors", "--addr", "127.0.0.1:0")
	if !strings.Contains(strings.Join(srv.out, "\n"), "opened") {
		t.Errorf("first start: %v", srv.out)
	}
	out := runBin(t, bin, ana, "join", srv.joinURL, "--name", "Ana")
	if !strings.Contains(out, "Joined workshop") {
		t.Errorf("join: %s", out)
	}
	out = runBin(t, bin, env, "class", "open", "examples")
	if !strings.Contains(out, "mcp-structured-errors: layers 1–3 open") {
		t.Errorf("class open: %s", out)
	}
	if _, err := exec.LookPath("python3"); err == nil {
		ws := filepath.Join(tmp, "ws")
		runBin(t, bin, ana, "init", "mcp-structured-errors", "--lang", "python", ws)
		cmd := exec.Command(bin, "grade", ws)
		cmd.Env = ana
		cmd.Run() // the template fails its tests: exit 1
		v := boardView(t, tmp)
		if len(v.Rows) != 1 || !v.Rows[0].Cells[0].Graded || v.Rows[0].Cells[0].Status != "fail" || len(v.Summary.Rules) == 0 {
			t.Errorf("after kata grade the board shows %+v", v.Rows)
		}
	}
	code := strings.Split(srv.joinURL, "/")[3]
	before, _ := workshop.LoadInstructor(filepath.Join(tmp, "data", "kata", "instructor.json"))
	if before.Token == "" || strings.Contains(strings.Join(srv.out, "\n"), before.Token) {
		t.Errorf("kata serve printed its instructor token on stdout (the board's screen): %v", srv.out)
	}
	if rest := srv.stop(); !strings.Contains(rest, "Stopped") {
		t.Errorf("after SIGTERM: %q", rest)
	}
	srv = startServe(t, bin, env, "--kata", "mcp-structured-errors", "--addr", "127.0.0.1:0")
	if !strings.Contains(srv.joinURL, code) || !strings.Contains(strings.Join(srv.out, "\n"), "resumed") {
		t.Errorf("after a restart: %v, want workshop %s resumed", srv.out, code)
	}
	if v := boardView(t, tmp); len(v.Rows) != 1 || v.Rows[0].Name != "Ana" || v.Katas[0].Open.Layers != 3 {
		t.Errorf("after a restart the board is %+v", v)
	}
	if after, _ := workshop.LoadInstructor(filepath.Join(tmp, "data", "kata", "instructor.json")); after.Token != before.Token {
		t.Error("a restart changed the instructor token")
	}
	// the instructor's one-argument commands: a message to every learner, a learner removed
	if out = runBin(t, bin, env, "class", "say", "Break until ten past"); !strings.Contains(out, "Sent to every learner.") {
		t.Errorf("class say: %s", out)
	}
	runBin(t, bin, env, "join", srv.joinURL, "--name", "Ben")
	if out = runBin(t, bin, env, "class", "remove", "Ben"); !strings.Contains(out, "Removed Ben") {
		t.Errorf("class remove: %s", out)
	}
	out = runBin(t, bin, ana, "leave")
	if !strings.Contains(out, "Left workshop "+code) {
		t.Errorf("leave: %s", out)
	}
	out = runBin(t, bin, env, "class", "close")
	if !strings.Contains(out, "closed") {
		t.Errorf("close: %s", out)
	}
	cmd := exec.Command(bin, "join", srv.joinURL, "--name", "Late")
	cmd.Env = ana
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "closed") {
		t.Errorf("joining a closed workshop: %v %s", err, b)
	}
}

// boardView reads the board over the API with the instructor file kata serve left.
func boardView(t *testing.T, tmp string) board.View {
	t.Helper()
	i, err := workshop.LoadInstructor(filepath.Join(tmp, "data", "kata", "instructor.json"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", i.Base+workshop.PathBoard, nil)
	req.Header.Set("Authorization", "Bearer "+i.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v board.View
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// serveTLS: with --tls-cert and --tls-key the join line is https and a learner whose
// system trusts the certificate (SSL_CERT_FILE) joins.
func serveTLS(t *testing.T, bin string) {
	tmp := t.TempDir()
	certFile, keyFile := selfSigned(t, tmp)
	env := append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(tmp, "data"), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	srv := startServe(t, bin, env, "--kata", "mcp-structured-errors", "--addr", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(srv.joinURL, "https://127.0.0.1:") {
		t.Fatalf("join URL %s: want https", srv.joinURL)
	}
	learner := append(env[:len(env):len(env)], "KATA_STATE="+filepath.Join(tmp, "l.db"), "SSL_CERT_FILE="+certFile)
	if out := runBin(t, bin, learner, "join", srv.joinURL, "--name", "Ana"); !strings.Contains(out, "Joined") {
		t.Errorf("join over TLS: %s", out)
	}
	// Plain HTTP to the TLS port is refused.
	resp, err := http.Get(strings.Replace(srv.joinURL, "https", "http", 1))
	if err == nil && resp.StatusCode < 400 {
		t.Errorf("plain HTTP to the TLS server answered %d", resp.StatusCode)
	}
}

// selfSigned writes a certificate and key for 127.0.0.1.
func selfSigned(t *testing.T, dir string) (string, string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kata test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile
}

// tmuxWindows drives several windows of one private tmux server.
type tmuxWindows struct {
	t    *testing.T
	sock string
}

func (s *tmuxWindows) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys types keys into window w.
func (s *tmuxWindows) keys(w string, keys ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", "live:" + w}, keys...)...)
}

// wait polls window w until it shows want, and returns the screen.
func (s *tmuxWindows) wait(w, want string) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := s.tmux("capture-pane", "-p", "-J", "-t", "live:"+w)
		if strings.Contains(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("window %s never showed %q; it shows:\n%s", w, want, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitGone polls window w until it no longer shows text.
func (s *tmuxWindows) waitGone(w, text string) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Contains(s.tmux("capture-pane", "-p", "-J", "-t", "live:"+w), text) {
		if time.Now().After(deadline) {
			s.t.Fatalf("window %s still shows %q", w, text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// workshopInTmux is the live workshop as people run it, each in their own terminal: the
// instructor's board, two learners' apps; reading, answering and grading reach the board;
// the instructor opens layer 2 and starts a live quiz that both apps show at once; the
// distribution and the reveal; the server killed (SIGKILL) and started again, and the
// learners' apps reconnect by themselves.
func workshopInTmux(t *testing.T, bin string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	tmp := t.TempDir()
	s := &tmuxWindows{t: t, sock: filepath.Join(tmp, "tmux.sock")}
	envOf := func(who string) string {
		d := filepath.Join(tmp, who)
		return "env TERM=xterm-256color NO_COLOR=1 HOME=" + d + " XDG_DATA_HOME=" + d + "/data XDG_STATE_HOME=" + d + "/state PATH=" + os.Getenv("PATH") + " "
	}
	s.tmux("new-session", "-d", "-s", "live", "-n", "serve", "-x", "120", "-y", "40", "bash", "--norc")
	t.Cleanup(func() { exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	t.Cleanup(func() {
		if t.Failed() {
			for _, w := range []string{"serve", "ana", "ben"} {
				out, _ := exec.Command("tmux", "-S", s.sock, "capture-pane", "-p", "-t", "live:"+w).Output()
				t.Logf("window %s:\n%s", w, out)
			}
		}
	})
	s.tmux("new-window", "-t", "live", "-n", "ana", "bash", "--norc")
	s.tmux("new-window", "-t", "live", "-n", "ben", "bash", "--norc")
	port := freeTCPPort(t)
	serve := envOf("inst") + bin + " serve --kata mcp-structured-errors --addr 127.0.0.1:" + port
	s.keys("serve", serve, "Enter")
	scr := s.wait("serve", "No learner has joined yet.")
	url := regexp.MustCompile(`kata join (http\S+)`).FindStringSubmatch(scr)[1]
	code := url[strings.LastIndex(url, "/")+1:]

	s.keys("ana", envOf("ana")+bin+" join "+url+" --name Ana && "+envOf("ana")+bin, "Enter")
	s.wait("ana", "workshop "+code+": live")
	s.keys("ana", "Down", "Down", "Enter")
	s.wait("ana", "The mental model")
	s.keys("ana", "2")
	s.wait("ana", "Locked: the prompts layer opens when your instructor says.")
	s.keys("ana", "x")
	s.wait("ana", "se-01")
	s.keys("ana", "a", "Enter") // a letter marks, enter answers
	s.wait("serve", "/1     —") // right or wrong (options are shuffled), the answer reached the board
	s.keys("ana", "Escape")

	s.keys("ben", envOf("ben")+bin+" join "+url+" --name Ben && "+envOf("ben")+bin, "Enter")
	s.wait("ben", "workshop "+code+": live")
	s.wait("serve", "2 learners")

	s.keys("serve", "o")
	s.wait("serve", "layers 1–2 of 5 (up to prompts)")
	s.wait("ana", "Review my error contract") // the layer on show opened

	s.keys("serve", "l")
	s.wait("ana", "Live quiz")
	s.wait("ben", "Live quiz")
	s.keys("ana", "c", "Enter")
	s.keys("ben", "b", "Enter")
	s.wait("serve", "se-01 · 2 answers")
	s.keys("serve", "r")
	s.wait("ana", "How the class answered")
	s.wait("ben", "How the class answered")

	// SIGKILL the server: the apps go offline, then reconnect when it is back.
	out, _ := exec.Command("pgrep", "-f", "serve --kata mcp-structured-errors --addr 127.0.0.1:"+port).Output()
	pid, err := strconv.Atoi(strings.Fields(string(out))[0])
	if err != nil {
		t.Fatal(err)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	s.keys("ana", "Escape")
	time.Sleep(300 * time.Millisecond) // let Escape land alone (it would pair with the next key as alt+key)
	s.keys("ana", "Escape")
	s.wait("ana", "workshop "+code+": offline")
	s.wait("serve", "Killed")
	s.keys("serve", "clear", "Enter")
	s.waitGone("serve", "Killed")
	s.keys("serve", serve, "Enter")
	s.wait("serve", "2 learners")
	s.wait("serve", "se-01 · 2 answers") // nothing lost
	s.wait("ana", "workshop "+code+": live")
	s.keys("ben", "Escape")
	s.wait("ben", "workshop "+code+": live")
	s.keys("serve", "q")
	s.keys("ana", "q")
	s.keys("ben", "q")
}

func freeTCPPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}
