// Package pgtest starts a private PostgreSQL cluster for tests and benchmarks: initdb into a
// temporary folder, the server listening only on a unix socket in that folder (no TCP port),
// stopped and removed at the end.
//
// PostgreSQL refuses to run as root, so when the process is root the cluster runs as the
// user "nobody" (the folder is handed to it, and initdb, pg_ctl and the server run with its
// uid and gid); otherwise it runs as the current user. The programs are found on PATH, or
// else under /usr/lib/postgresql/<version>/bin, where Debian's postgresql package puts them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrMissing says PostgreSQL's programs are not installed.
var ErrMissing = errors.New("PostgreSQL is not installed (initdb and pg_ctl not found on PATH or under /usr/lib/postgresql/*/bin); install it with `apt-get install postgresql` (Debian, Ubuntu) or your system's package — .ci/run does")

// EnvRequire names the environment variable that, set to 1, turns a missing PostgreSQL into a
// test failure instead of a skip (.ci/run sets it).
const EnvRequire = "KATA_REQUIRE_POSTGRES"

// Cluster is a running private PostgreSQL server.
type Cluster struct {
	// Dir holds the data folder, the socket and the log.
	Dir  string
	bin  string
	cred *syscall.Credential
}

// Options tune a cluster.
type Options struct {
	// Durable keeps fsync on (a benchmark measuring real commits); tests leave it off.
	Durable bool
	// MaxConnections is the server's max_connections (default 200).
	MaxConnections int
}

// Bin finds the folder of initdb and pg_ctl.
func Bin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", ErrMissing
}

// version is the major version in /usr/lib/postgresql/<version>/bin.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// Start initialises and starts a cluster. The caller must Stop it.
func Start(opts Options) (*Cluster, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kata-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("pgtest: running as root and there is no user nobody to run PostgreSQL as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if out, err := c.run("initdb", "-D", c.data(), "-U", "kata", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	maxConn := opts.MaxConnections
	if maxConn == 0 {
		maxConn = 200
	}
	conf := fmt.Sprintf("-k %s -c listen_addresses= -c max_connections=%d", dir, maxConn)
	if !opts.Durable {
		conf += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	if out, err := c.run("pg_ctl", "-D", c.data(), "-o", conf, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return c, nil
}

func (c *Cluster) data() string { return filepath.Join(c.Dir, "data") }

// run runs one of PostgreSQL's programs as the cluster's user.
func (c *Cluster) run(prog string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd.CombinedOutput()
}

// DSN is the URL of database db on the cluster, over its unix socket.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("postgres:///%s?host=%s&user=kata&sslmode=disable", db, c.Dir)
}

// CreateDB creates a new, empty database and returns its URL.
func (c *Cluster) CreateDB(ctx context.Context) (string, error) {
	b := make([]byte, 6)
	rand.Read(b)
	name := "t_" + hex.EncodeToString(b)
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	return c.DSN(name), nil
}

// Stop stops the server (immediate shutdown) and removes its folder.
func (c *Cluster) Stop() error {
	out, err := c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "-t", "60", "stop")
	rmErr := os.RemoveAll(c.Dir)
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %v\n%s", err, out)
	}
	return rmErr
}

// shared is the package-wide cluster DB starts on first use and Main stops.
var shared struct {
	once sync.Once
	c    *Cluster
	err  error
}

// DB returns the URL of a new, empty database on the test binary's shared cluster, starting
// the cluster on first use. Without PostgreSQL the test is skipped with an install hint,
// unless KATA_REQUIRE_POSTGRES=1 makes it fail. Call Main from TestMain to stop the cluster.
func DB(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() { shared.c, shared.err = Start(Options{}) })
	if shared.err != nil {
		if errors.Is(shared.err, ErrMissing) && os.Getenv(EnvRequire) != "1" {
			t.Skip(shared.err.Error())
		}
		t.Fatal(shared.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, err := shared.c.CreateDB(ctx)
	if err != nil {
		t.Fatalf("pgtest: creating a database: %v", err)
	}
	return dsn
}

// Main runs the tests and then stops the shared cluster, if one was started: call it from
// TestMain as os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if shared.c != nil {
		if err := shared.c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Describe says where the cluster's binaries are and which user runs it, for logs.
func (c *Cluster) Describe() string {
	who := "the current user"
	if c.cred != nil {
		who = "user nobody (uid " + strconv.Itoa(int(c.cred.Uid)) + ")"
	}
	return strings.Join([]string{"PostgreSQL from " + c.bin, "run as " + who, "socket in " + c.Dir}, ", ")
}
