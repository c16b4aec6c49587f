package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/workshop"
)

// TestInstructorErrorsInTheReadersLanguage: a refused instructor action's error is English
// (the API's message) and, through i18n.Localizer.Error, the instructor's language on the
// terminal board.
func TestInstructorErrorsInTheReadersLanguage(t *testing.T) {
	r := startRig(t, "", Options{})
	ctx := context.Background()
	ru := i18n.New("ru")
	_, err := r.class.Reveal(ctx)
	if err == nil || err.Error() != "no live quiz is under way: start one first" || ru.Error(err) != "живой квиз сейчас не идёт: сначала запустите его" {
		t.Errorf("revealing no quiz: %v / %q", err, ru.Error(err))
	}
	_, err = r.class.StartQuiz(ctx, workshop.QuizRequest{Kata: "mini-kata", Items: []string{"zz-99"}})
	if err == nil || err.Error() != `kata mini-kata has no item "zz-99"` || ru.Error(err) != `в ката mini-kata нет вопроса "zz-99"` {
		t.Errorf("an unknown item: %v / %q", err, ru.Error(err))
	}
	_, err = r.class.Pace(ctx, workshop.PacingRequest{Kata: "other"})
	if err == nil || err.Error() != `kata "other" is not one of this workshop's ([mini-kata])` || !strings.HasPrefix(i18n.New("es").Error(err), `la kata "other" no es de este taller`) {
		t.Errorf("pacing another kata: %v / %q", err, i18n.New("es").Error(err))
	}
	// The API still answers in English, with its status.
	status, apiErr, _ := r.raw(http.MethodPost, workshop.PathQuizReveal, r.token, "application/json", strings.NewReader("{}"))
	if status != http.StatusConflict || apiErr.Message != "no live quiz is under way: start one first" {
		t.Errorf("POST %s: %d %+v", workshop.PathQuizReveal, status, apiErr)
	}
}
