package main

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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kata-mcp/kata/katas/workshop"
	"github.com/kata-mcp/kata/katas/workshop/board"
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

// TestServeJoinClassAndRestart drives the commands as an instructor and a learner would:
// serve headless, join, open a layer, grade (the verdict reaches the board), stop and
// start again (the same workshop, nothing lost).
func TestServeJoinClassAndRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tmp := t.TempDir()
	bin := buildKata(t, tmp)
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

// TestServeTLS: with --tls-cert and --tls-key the join line is https and a learner whose
// system trusts the certificate (SSL_CERT_FILE) joins.
func TestServeTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	tmp := t.TempDir()
	bin := buildKata(t, tmp)
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
