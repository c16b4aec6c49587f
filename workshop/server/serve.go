package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/store"
)

// Config is what `kata serve` starts with.
type Config struct {
	// Katas are the workshop's katas.
	Katas []string
	// Addr is the address to listen on (":7878"; ":0" picks a free port).
	Addr string
	// DB is the store: a postgres:// URL, or an SQLite file's path.
	DB string
	// TLSCert and TLSKey are PEM files: with both, the server speaks HTTPS.
	TLSCert, TLSKey string
	// PublicURL is the address learners reach the server at (behind a reverse proxy, say);
	// empty means the scheme, this machine's address and the port listened on.
	PublicURL string
	// Opening is what a new workshop opens of each kata.
	Opening Opening
	// New closes the open workshop of these katas, if any, and starts a new one (a new code).
	New bool
	// Token is the instructor token of an earlier start (the instructor file's): kept when it
	// is the workshop's, so a restart does not change it (Server.OpenWith).
	Token string
	// Options tune the server.
	Options Options
}

// Running is a started server.
type Running struct {
	// Workshop is the workshop opened; Token the instructor token issued for this start (the
	// store keeps its hash); Created says the workshop (and its code) is new.
	Workshop *Workshop
	Token    string
	Created  bool
	// Base is the address learners reach the server at.
	Base string
	// Addr is the address listened on.
	Addr string

	srv   *Server
	st    *store.Store
	http  *http.Server
	errs  chan error
	stopL context.CancelFunc
}

// JoinURL is the workshop's join address.
func (r *Running) JoinURL() string {
	return workshop.JoinURL{Base: r.Base, Code: r.Workshop.Code()}.String()
}

// BoardURL is the web board's address with the instructor token: the page logs in with it
// and drops it from the address (a cookie keeps it). Never show it on a screen the class can
// see: BoardPage is the address without it.
func (r *Running) BoardURL() string { return r.BoardPage() + "?token=" + r.Token }

// BoardPage is the web board's address without the token.
func (r *Running) BoardPage() string { return r.Base + workshop.PathBoardPage }

// Err delivers the error that stopped serving, if it stops by itself.
func (r *Running) Err() <-chan error { return r.errs }

// Store names the store for messages.
func (r *Running) Store() string { return r.st.String() }

// Start opens the store, resumes or creates the workshop, issues an instructor token and
// starts serving (and, on PostgreSQL, following the other replicas). Stop ends it.
func Start(ctx context.Context, lib *katas.Library, cfg Config) (*Running, error) {
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, errors.New("--tls-cert and --tls-key go together: give both or neither")
	}
	var tlsConf *tls.Config
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("loading the TLS certificate: %w", err)
		}
		tlsConf = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		cfg.Options.Secure = true
	}
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	srv := New(st, lib, cfg.Options)
	fail := func(err error) (*Running, error) {
		srv.Close()
		st.Close()
		return nil, err
	}
	if cfg.New {
		c, _, created, err := srv.Open(ctx, cfg.Katas, cfg.Opening)
		if err != nil {
			return fail(err)
		}
		if !created {
			if _, err := c.Close(ctx); err != nil {
				return fail(err)
			}
		}
		// A fresh server, so the closed workshop's hub is not kept.
		srv.Close()
		srv = New(st, lib, cfg.Options)
	}
	class, token, created, err := srv.OpenWith(ctx, cfg.Katas, cfg.Opening, cfg.Token)
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fail(err)
	}
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		TLSConfig:         tlsConf,
		ErrorLog:          nil,
	}
	r := &Running{Workshop: class, Token: token, Created: created, Addr: ln.Addr().String(), srv: srv, st: st, http: hs, errs: make(chan error, 1)}
	r.Base = cfg.PublicURL
	if r.Base == "" {
		r.Base = advertised(ln.Addr(), tlsConf != nil)
	}
	r.Base = strings.TrimRight(r.Base, "/")
	if _, err := url.Parse(r.Base); err != nil {
		ln.Close()
		return fail(fmt.Errorf("--public-url %q: %w", cfg.PublicURL, err))
	}
	go func() {
		var err error
		if tlsConf != nil {
			err = hs.ServeTLS(ln, "", "")
		} else {
			err = hs.Serve(ln)
		}
		if !errors.Is(err, http.ErrServerClosed) {
			r.errs <- err
		}
	}()
	lctx, cancel := context.WithCancel(context.Background())
	r.stopL = cancel
	go srv.Run(lctx, nil)
	return r, nil
}

// Stop ends the streams, stops serving (waiting up to the context for requests in flight)
// and closes the store.
func (r *Running) Stop(ctx context.Context) error {
	r.stopL()
	r.srv.Close()
	err := r.http.Shutdown(ctx)
	return errors.Join(err, r.st.Close())
}

// advertised is the base URL learners can reach a listener at: its own address when it is
// bound to one, else this machine's first non-loopback IPv4 address (the one a classroom's
// network can reach), else localhost.
func advertised(a net.Addr, tls bool) string {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return scheme + "://" + a.String()
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "localhost"
		if ip := lanIP(); ip != "" {
			host = ip
		}
	}
	return fmt.Sprintf("%s://%s", scheme, net.JoinHostPort(host, fmt.Sprint(tcp.Port)))
}

// lanIP is this machine's first up, non-loopback IPv4 address ("" when none).
func lanIP() string {
	ifaces, err := net.Interfaces()
	if err != nil {
		return ""
	}
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
				return ipn.IP.String()
			}
		}
	}
	return ""
}
