package server

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/internal/i18n"
)

// TestPagesForBrowsersInTheReadersLanguage: the join page and the board's refusal follow the
// browser's Accept-Language (the first language kata has), else the server's language.
func TestPagesForBrowsersInTheReadersLanguage(t *testing.T) {
	r := startRig(t, "", Options{Loc: i18n.New("es")})
	get := func(path, accept string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, r.http.URL+path, nil)
		if accept != "" {
			req.Header.Set("Accept-Language", accept)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code := r.class.Code()
	for _, c := range []struct{ path, accept, want string }{
		{"/" + code, "fr-CH, ru;q=0.9, en;q=0.8", "Подключитесь к этому воркшопу из терминала:\n\n  kata join " + r.http.URL + "/" + code + " --name ВАШЕ_ИМЯ\n"},
		{"/" + code, "en-GB", "Join this workshop from a terminal:\n\n  kata join "},
		{"/" + code, "", "Únete a este taller desde una terminal:"},
		{"/nope", "ru", "kata serve: подключитесь к воркшопу командой `kata join http://HOST:PORT/CODE --name ВАШЕ_ИМЯ`"},
		{"/board", "ru-RU", `<html lang="ru"><title>kata board</title><p>Откройте адрес доски, который вывела команда <code>kata serve</code> (он заканчивается на <code>/board?token=…</code>).</p>`},
		{"/board", "de", `<p>Abre la dirección del tablero que mostró <code>kata serve</code>`},
	} {
		if _, body := get(c.path, c.accept); !strings.Contains(body, c.want) {
			t.Errorf("GET %s (Accept-Language %q): %q, want %q in it", c.path, c.accept, body, c.want)
		}
	}
}
