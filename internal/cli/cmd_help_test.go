package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/locale"
	"github.com/kata-mcp/kata/internal/version"
)

// helpTree is kata's command tree as help shows it: with cobra's help and completion commands
// and every command's -h flag, which Execute would add.
func helpTree() *cobra.Command {
	root := newRootCmd(io.Discard, io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return root
}

// visibleCommands lists the commands help can show, root first.
func visibleCommands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Deprecated != "" {
			return
		}
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// TestHelpCatalogIsTheCode: for every command and flag help shows, the English catalog has the
// code's own text under its id, Spanish and Russian have a translation that keeps the flag's
// backquoted value name, and the catalog has no command text the tree lacks.
func TestHelpCatalogIsTheCode(t *testing.T) {
	en, es, ru := i18n.New("en"), i18n.New("es"), i18n.New("ru")
	ids := map[string]bool{}
	check := func(id, code string, flag bool) {
		t.Helper()
		if code == "" {
			return
		}
		ids[id] = true
		if got := en.T(id); got != code {
			t.Errorf("%s: the English catalog has\n  %q\nthe code\n  %q", id, got, code)
		}
		for _, loc := range []*i18n.Localizer{es, ru} {
			got := loc.T(id)
			if got == id || got == code {
				t.Errorf("%s: %s has no translation", id, loc.Lang())
				continue
			}
			if flag {
				want, _ := pflag.UnquoteUsage(&pflag.Flag{Usage: code, Value: new(boolish)})
				name, _ := pflag.UnquoteUsage(&pflag.Flag{Usage: got, Value: new(boolish)})
				if name != want {
					t.Errorf("%s: %s names the value %q, English %q", id, loc.Lang(), name, want)
				}
			}
		}
	}
	cmds := visibleCommands(helpTree())
	if len(cmds) < 25 {
		t.Fatalf("only %d commands", len(cmds))
	}
	flags := 0
	for _, c := range cmds {
		check(helpID(c)+".short", c.Short, false)
		check(helpID(c)+".long", c.Long, false)
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			flags++
			if isCobraHelpFlag(f) {
				if got := en.T("cli.help_flag", "Name", c.DisplayName()); got != f.Usage {
					t.Errorf("%s -h: the English catalog has %q, cobra %q", c.CommandPath(), got, f.Usage)
				}
				return
			}
			check(helpFlagID(c, f.Name), f.Usage, true)
		})
	}
	if flags < 60 {
		t.Fatalf("only %d flags", flags)
	}
	src, err := os.ReadFile(filepath.Join("..", "i18n", "cli.en.toml"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := goi18n.ParseMessageFileBytes(src, "cli.en.toml", map[string]goi18n.UnmarshalFunc{"toml": toml.Unmarshal})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mf.Messages {
		if strings.HasPrefix(m.ID, "cli.kata.") && !ids[m.ID] {
			t.Errorf("cli.en.toml has %q, which is no command's or flag's text", m.ID)
		}
	}
}

// boolish is a flag value whose type pflag names in a usage line when the usage has no
// backquoted name.
type boolish string

func (b *boolish) String() string     { return string(*b) }
func (b *boolish) Set(s string) error { *b = boolish(s); return nil }
func (b *boolish) Type() string       { return "value" }

// clearLocale empties the variables that pick the language.
func clearLocale(t *testing.T) {
	t.Helper()
	for _, name := range []string{locale.EnvLang, "LC_ALL", "LC_MESSAGES", "LANG"} {
		t.Setenv(name, "")
	}
}

// helpGoldens are the help texts kept in testdata/help/<name>.en.golden, as cobra printed them
// before kata localized help: the command line of each.
var helpGoldens = map[string][]string{
	"kata":                 {"--help"},
	"kata-grade":           {"grade", "--help"},
	"kata-show":            {"show", "--help"},
	"kata-init":            {"init", "--help"},
	"kata-class":           {"class", "--help"},
	"kata-class-open":      {"class", "open", "--help"},
	"kata-export":          {"export", "--help"},
	"kata-help":            {"help", "--help"},
	"kata-completion":      {"completion", "--help"},
	"kata-completion-bash": {"completion", "bash", "--help"},
}

// TestEnglishHelpIsCobras: in English (by the environment or --lang, which for kata init is the
// workspace's programming language instead) kata's help is byte for byte what cobra printed
// before help was localized.
func TestEnglishHelpIsCobras(t *testing.T) {
	for name, args := range helpGoldens {
		want, err := os.ReadFile(filepath.Join("testdata", "help", name+".en.golden"))
		if err != nil {
			t.Fatal(err)
		}
		for _, env := range [][2]string{{locale.EnvLang, "en"}, {"LANG", "C"}, {"LANG", "ru_RU.UTF-8"}} {
			clearLocale(t)
			t.Setenv(env[0], env[1])
			a := args
			if env[1] == "ru_RU.UTF-8" {
				if name == "kata-init" {
					continue // init's --lang is the workspace's programming language
				}
				a = append([]string{"--lang", "en"}, args...)
			}
			out, errOut, err := runKataErr(t, a...)
			if err != nil || errOut != "" {
				t.Fatalf("kata %v: %v %s", a, err, errOut)
			}
			if out != string(want) {
				t.Errorf("%s=%s kata %v differs from %s.en.golden:\n%s", env[0], env[1], a, name, out)
			}
		}
	}
}

// TestHelpSpeaksTheLocale: kata --help and kata grade --help show cobra's headings, the
// commands' and flags' texts in the language KATA_LANG, LANG or --lang picks, with the flags'
// layout and value names unchanged; kata help CMD says the same as CMD --help.
func TestHelpSpeaksTheLocale(t *testing.T) {
	english := []string{"Usage:", "Available Commands:", "Flags:", "Global Flags:", "help for ", "for more information", "(default "}
	for _, c := range []struct {
		env, value string
		args       []string
		want       []string
	}{
		{locale.EnvLang, "es", []string{"--help"}, []string{
			"Sin orden, abre la interfaz de terminal.\n\nUso:\n  kata [flags]\n  kata [command]\n\nÓrdenes disponibles:\n",
			"\n  grade       Evalúa un espacio de trabajo con los fixtures ocultos de su kata",
			"\n  help        Ayuda sobre cualquier orden\n",
			"\n  completion  Genera el script de autocompletado para el shell indicado\n",
			"\n\nIndicadores:\n  -h, --help           ayuda de kata\n      --lang string    el idioma en que lees kata",
			"\n      --packets DIR    carga también los paquetes de DIR (",
			"\n\nUsa \"kata [command] --help\" para saber más de una orden.\n",
		}},
		{"LANG", "ru_RU.UTF-8", []string{"--help"}, []string{
			"Без команды открывается терминальный интерфейс.\n\nИспользование:\n  kata [flags]\n  kata [command]\n\nКоманды:\n",
			"\n  grade       Проверить рабочую папку на скрытых фикстурах её ката",
			"\n\nФлаги:\n  -h, --help           справка по kata\n",
			"\n\nПодробнее о команде: \"kata [command] --help\".\n",
		}},
		{locale.EnvLang, "es", []string{"grade", "--help"}, []string{
			"Evalúa un espacio de trabajo con los fixtures ocultos de su kata (sale con 0 si supera todos los tests, 1 si falla alguno, 2 si hay error)\n\nUso:\n  kata grade [DIR] [flags]\n\nIndicadores:\n",
			"\n      --junit FILE        escribe también un informe JUnit XML en FILE, para CI\n",
			"\n  -h, --help              ayuda de grade\n",
			"\n  -w, --watch             vuelve a evaluar cada vez que se guarda un archivo",
			"\n\nIndicadores globales:\n      --lang string   el idioma en que lees kata",
		}},
		{"LANG", "ru_RU.UTF-8", []string{"grade", "--help"}, []string{
			"Проверить рабочую папку на скрытых фикстурах её ката (код выхода 0 — пройдено, 1 — не пройдено, 2 — ошибка)\n\nИспользование:\n  kata grade [DIR] [flags]\n\nФлаги:\n",
			"\n      --seed int          повторить случайные выборки прогона (отчёт печатает своё зерно, seed)\n",
			"\n\nОбщие флаги:\n      --lang string   язык, на котором вы читаете kata",
		}},
		{locale.EnvLang, "es", []string{"--lang", "ru", "grade", "--help"}, []string{"\n\nОбщие флаги:\n"}},
		{"LANG", "ru_RU.UTF-8", []string{"show", "--help"}, []string{
			"как в приложении (по умолчанию \"knowledge\")\n",
		}},
		{locale.EnvLang, "es", []string{"init", "--lang", "go", "--help"}, []string{
			"\n      --lang string   el lenguaje de programación del espacio de trabajo: python, node o go (aquí --lang no es el idioma de lectura: TASK.md se escribe en el idioma que indique $KATA_LANG o $LANG) (por defecto \"python\")\n",
		}},
	} {
		clearLocale(t)
		t.Setenv(c.env, c.value)
		out, errOut, err := runKataErr(t, c.args...)
		if err != nil || errOut != "" {
			t.Fatalf("%s=%s kata %v: %v %s", c.env, c.value, c.args, err, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s=%s kata %v lacks %q:\n%s", c.env, c.value, c.args, w, out)
			}
		}
		for _, w := range english {
			if strings.Contains(out, w) {
				t.Errorf("%s=%s kata %v still has %q:\n%s", c.env, c.value, c.args, w, out)
			}
		}
	}
	// kata help grade is kata grade --help
	clearLocale(t)
	t.Setenv("LANG", "es_ES.UTF-8")
	viaFlag, _, err := runKataErr(t, "class", "grade", "--help")
	if err != nil {
		t.Fatal(err)
	}
	viaHelp, _, err := runKataErr(t, "help", "class", "grade")
	if err != nil {
		t.Fatal(err)
	}
	if viaHelp != viaFlag || !strings.Contains(viaHelp, "Indicadores globales:") {
		t.Errorf("kata help class grade:\n%s\nkata class grade --help:\n%s", viaHelp, viaFlag)
	}
}

// TestCobraErrorsSpeakTheLocale: cobra's and pflag's errors about a command line read in the
// reader's language, and in English exactly as cobra words them; other errors are unchanged.
func TestCobraErrorsSpeakTheLocale(t *testing.T) {
	clearLocale(t)
	run := func(args ...string) error {
		t.Helper()
		_, _, err := runKataErr(t, args...)
		if err == nil {
			t.Fatalf("kata %v: no error", args)
		}
		return err
	}
	// a tree whose root checks its commands the legacy way, so cobra suggests one
	legacy := &cobra.Command{Use: "kata", SilenceErrors: true, SilenceUsage: true}
	legacy.AddCommand(&cobra.Command{Use: "list", Run: func(*cobra.Command, []string) {}})
	legacy.SetArgs([]string{"lsit"})
	legacy.SetOut(io.Discard)
	suggested := legacy.Execute()
	required := &cobra.Command{Use: "join", Run: func(*cobra.Command, []string) {}}
	required.Flags().String("name", "", "")
	required.MarkFlagRequired("name")
	cmd := &cobra.Command{Use: "kata"}
	for _, c := range []struct {
		err    error
		es, ru string
	}{
		{run("nosuch"), `orden desconocida "nosuch" para "kata"`, `неизвестная команда "nosuch" для "kata"`},
		{suggested, "orden desconocida \"lsit\" para \"kata\"\n\n¿Quisiste decir esto?\n\tlist\n", "неизвестная команда \"lsit\" для \"kata\"\n\nВозможно, вы имели в виду:\n\tlist\n"},
		{run("list", "--nosuch"), "indicador desconocido: --nosuch", "неизвестный флаг: --nosuch"},
		{run("grade", "-vx"), "indicador corto desconocido: 'x' en -x", "неизвестный короткий флаг: 'x' в -x"},
		{run("export", "gradescope", "-o"), "el indicador necesita un valor: 'o' en -o", "флагу нужно значение: 'o' в -o"},
		{run("grade", "---x"), "sintaxis de indicador incorrecta: ---x", "неверный синтаксис флага: ---x"},
		{run("grade", "--seed"), "el indicador necesita un valor: --seed", "флагу нужно значение: --seed"},
		{run("grade", "-v", "--kata"), "el indicador necesita un valor: --kata", "флагу нужно значение: --kata"},
		{run("show"), "admite entre 1 y 2 argumentos, recibió 0", "нужно от 1 до 2 аргументов, получено 0"},
		{run("export", "skill", "a"), "admite 2 argumentos, recibió 1", "нужно 2 аргумента, получено 1"},
		{run("init"), "admite entre 1 y 2 argumentos, recibió 0", "нужно от 1 до 2 аргументов, получено 0"},
		{run("class", "grade"), "requiere al menos 1 argumento, solo recibió 0", "нужен хотя бы 1 аргумент, получено только 0"},
		{run("grade", "a", "b"), "admite como mucho 1 argumento, recibió 2", "допускается не больше 1 аргумента, получено 2"},
		{cobra.ExactArgs(5)(cmd, nil), "admite 5 argumentos, recibió 0", "нужно 5 аргументов, получено 0"},
		{required.ValidateRequiredFlags(), `falta el indicador obligatorio "name"`, `не задан обязательный флаг "name"`},
		{errors.New("grade: no workspace"), "grade: no workspace", "grade: no workspace"},
	} {
		if c.err == nil {
			t.Fatalf("no error for %q", c.es)
		}
		if got := errorText(c.err, i18n.New("en")); got != c.err.Error() {
			t.Errorf("English:\n  %q\ncobra:\n  %q", got, c.err.Error())
		}
		if got := errorText(c.err, i18n.New("es")); got != c.es {
			t.Errorf("Spanish of %q:\n  %q\nwant\n  %q", c.err, got, c.es)
		}
		if got := errorText(c.err, i18n.New("ru")); got != c.ru {
			t.Errorf("Russian of %q:\n  %q\nwant\n  %q", c.err, got, c.ru)
		}
	}
}

// TestArgsLang reads --lang from a command line the way pflag does: the last one counts, and
// nothing after "--".
func TestArgsLang(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"nosuch", "--lang", "ru"}, "ru"},
		{[]string{"--lang=es", "grade"}, "es"},
		{[]string{"--lang", "es", "x", "--lang=ru"}, "ru"},
		{[]string{"grade", "--", "--lang", "ru"}, ""},
		{[]string{"grade", "--lang"}, ""},
	} {
		if got := argsLang(c.args); got != c.want {
			t.Errorf("argsLang(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}

// A flag value that is not a number says so in the reader's words, not Go's strconv error
// (issue 27: `--seed abc`).
func TestNumberFlagErrorsSayWhatIsWanted(t *testing.T) {
	_, _, err := runKataErr(t, "grade", "--seed", "abc")
	if err == nil {
		t.Fatal("--seed abc: no error")
	}
	for lang, want := range map[string]string{
		"en": `invalid argument "abc" for "--seed" flag: want a whole number`,
		"es": `valor "abc" no válido para el indicador "--seed": se espera un número entero`,
		"ru": `недопустимое значение "abc" флага "--seed": нужно целое число`,
	} {
		if got := errorText(err, i18n.New(lang)); got != want {
			t.Errorf("%s: %q, want %q", lang, got, want)
		}
	}
	if _, _, err := runKataErr(t, "grade", "--seed", "99999999999999999999"); err == nil || !strings.Contains(errorText(err, i18n.New("en")), "out of range") {
		t.Errorf("--seed out of range: %v", err)
	}
}

// kata --version prints the build's version (issue 27).
func TestVersionFlag(t *testing.T) {
	out, errOut, err := runKataErr(t, "--version")
	if err != nil || errOut != "" || !strings.HasPrefix(out, "kata version ") || out != "kata version "+version.String()+"\n" {
		t.Errorf("kata --version: %q %q %v", out, errOut, err)
	}
}
