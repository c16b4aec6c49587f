package cli

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/locale"
)

// The help in the reader's language (docs/i18n.md): the commands keep their English texts in
// code, and the catalog area "cli" (internal/i18n/cli.<lang>.toml) words them for the reader
// when help is printed. A command's texts are cli.<command path, dotted>.short and .long
// ("cli.kata.grade.short"), a flag's usage cli.<command path>.flag.<flag name>; the English
// catalog holds the code's own texts, which a test keeps equal.

// helpID is the catalog id prefix of command c's texts: "cli.kata.class.grade".
func helpID(c *cobra.Command) string {
	return "cli." + strings.ReplaceAll(c.CommandPath(), " ", ".")
}

// helpFlagID is the catalog id of the usage of flag name defined on command c.
func helpFlagID(c *cobra.Command, name string) string {
	return helpID(c) + ".flag." + name
}

// isCobraHelpFlag reports whether f is the -h/--help flag cobra adds to every command, whose
// usage is "help for NAME" (message cli.help_flag).
func isCobraHelpFlag(f *pflag.Flag) bool {
	_, ok := f.Annotations[cobra.FlagSetByCobraAnnotation]
	return ok && f.Name == "help"
}

// helpLocale is the language help is printed in: the root's --lang when given (init and export
// have a --lang of their own, a programming language, which does not count), then the
// environment (locale.Resolve).
func helpLocale(c *cobra.Command) string {
	flag := ""
	if f := c.Root().PersistentFlags().Lookup(langFlag); f != nil {
		flag = f.Value.String()
	}
	return locale.Resolve(flag, os.Getenv)
}

// argsLang is the value of the last --lang in the command line args (before any "--"), "" when
// there is none: the language main words an error in when cobra stopped before parsing flags.
func argsLang(args []string) string {
	lang := ""
	for i, a := range args {
		switch {
		case a == "--":
			return lang
		case a == "--"+langFlag && i+1 < len(args):
			lang = args[i+1]
		case strings.HasPrefix(a, "--"+langFlag+"="):
			lang = strings.TrimPrefix(a, "--"+langFlag+"=")
		}
	}
	return lang
}

// localizeHelpWhenShown makes root's help (kata --help, kata help CMD) localize the command
// tree (localizeHelp) once, in helpLocale's language, just before it is printed: the flags
// are parsed by then, so --lang counts.
func localizeHelpWhenShown(root *cobra.Command) {
	help := root.HelpFunc()
	var once sync.Once
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		once.Do(func() { localizeHelp(c.Root(), i18n.New(helpLocale(c))) })
		help(c, args)
	})
}

// localizeHelp words root's command tree for loc's reader: each visible command's Short and
// Long, each of its flags' usage (local and persistent, and cobra's -h) and the usage
// template's headings. English leaves the tree as it is, so English help is cobra's own bytes.
// A text the catalog lacks stays English.
func localizeHelp(root *cobra.Command, loc *i18n.Localizer) {
	if loc.Lang() == locale.English {
		return
	}
	word := func(id, english string) string {
		if english == "" {
			return ""
		}
		if s := loc.T(id); s != id {
			return s
		}
		return english
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Deprecated != "" {
			return
		}
		id := helpID(c)
		c.Short = word(id+".short", c.Short)
		c.Long = word(id+".long", c.Long)
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			if isCobraHelpFlag(f) {
				f.Usage = loc.T("cli.help_flag", "Name", c.DisplayName())
				return
			}
			f.Usage = word(helpFlagID(c, f.Name), f.Usage)
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	root.SetUsageTemplate(usageTemplate(root.UsageTemplate(), loc))
}

// usageTemplate is cobra's usage template base with its headings and closing line in loc's
// language, and pflag's "(default X)" after a flag's usage reworded (template function
// kataReword). The layout of commands and flags is base's.
func usageTemplate(base string, loc *i18n.Localizer) string {
	reword := " | kataReword " + strconv.Quote(" (default ") + " " + strconv.Quote(" ("+loc.T("cli.template.default")+" ")
	return strings.NewReplacer(
		"Usage:", loc.T("cli.template.usage"),
		"Aliases:", loc.T("cli.template.aliases"),
		"Examples:", loc.T("cli.template.examples"),
		"Available Commands:", loc.T("cli.template.commands"),
		"Additional Commands:", loc.T("cli.template.additional_commands"),
		"Global Flags:", loc.T("cli.template.global_flags"),
		"Flags:", loc.T("cli.template.flags"),
		"Additional help topics:", loc.T("cli.template.help_topics"),
		`Use "{{.CommandPath}} [command] --help" for more information about a command.`,
		loc.T("cli.template.more", "Command", "{{.CommandPath}}"),
		".FlagUsages |", ".FlagUsages"+reword+" |",
	).Replace(base)
}

func init() {
	// kataReword s old new: s with old replaced by new, for usageTemplate.
	cobra.AddTemplateFunc("kataReword", func(old, new, s string) string { return strings.ReplaceAll(s, old, new) })
}

// cobraErrors are the forms of cobra's own errors (its argument checks and command lookup) that
// errorText words: each pattern's groups are the message's fields, in order; a field named
// Count is the count that picks the plural form.
var cobraErrors = []struct {
	re     *regexp.Regexp
	id     string
	fields []string
}{
	{regexp.MustCompile(`^unknown command "(.*)" for "(.*)"((?s)\n\nDid you mean this\?\n.*)?$`), "cli.error.unknown_command", []string{"Name", "Command", "Suggestions"}},
	{regexp.MustCompile(`^accepts (\d+) arg\(s\), received (\d+)$`), "cli.error.exact_args", []string{"Count", "Received"}},
	{regexp.MustCompile(`^requires at least (\d+) arg\(s\), only received (\d+)$`), "cli.error.min_args", []string{"Count", "Received"}},
	{regexp.MustCompile(`^accepts at most (\d+) arg\(s\), received (\d+)$`), "cli.error.max_args", []string{"Count", "Received"}},
	{regexp.MustCompile(`^accepts between (\d+) and (\d+) arg\(s\), received (\d+)$`), "cli.error.range_args", []string{"Min", "Count", "Received"}},
	{regexp.MustCompile(`^required flag\(s\) (.*) not set$`), "cli.error.required_flags", []string{"Flags"}},
}

// valueCause says why a flag's value was refused: a number that is not one, or out of range,
// in the reader's words rather than Go's ("strconv.ParseInt: parsing …"); any other cause as
// it is.
func valueCause(err error, loc *i18n.Localizer) string {
	var num *strconv.NumError
	switch {
	case err == nil:
		return ""
	case !errors.As(err, &num):
		return err.Error()
	case errors.Is(num.Err, strconv.ErrRange):
		return loc.T("cli.error.out_of_range")
	case num.Func == "ParseFloat":
		return loc.T("cli.error.not_a_number")
	}
	return loc.T("cli.error.not_a_whole_number")
}

// errorText is err as main prints it after "kata: ", in loc's language: cobra's and pflag's
// errors about the command line (an unknown command or flag, a flag without its value or with
// a bad one, a wrong number of arguments) from the catalog, an *i18n.Error worded by loc, any
// other error as it is. The English catalog has cobra's own wording, so English is unchanged.
func errorText(err error, loc *i18n.Localizer) string {
	var (
		notExist *pflag.NotExistError
		required *pflag.ValueRequiredError
		invalid  *pflag.InvalidValueError
		syntax   *pflag.InvalidSyntaxError
	)
	text := err.Error()
	switch {
	case errors.As(err, &notExist) && text == notExist.Error():
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			return loc.T("cli.error.unknown_shorthand", "Flag", strconv.QuoteRune(rune(notExist.GetSpecifiedName()[0])), "Group", s)
		}
		if strings.HasPrefix(text, "unknown flag: ") {
			return loc.T("cli.error.unknown_flag", "Flag", notExist.GetSpecifiedName())
		}
	case errors.As(err, &required) && text == required.Error():
		if s := required.GetSpecifiedShortnames(); s != "" {
			return loc.T("cli.error.shorthand_needs_value", "Flag", strconv.QuoteRune(rune(required.GetSpecifiedName()[0])), "Group", s)
		}
		return loc.T("cli.error.needs_value", "Flag", required.GetSpecifiedName())
	case errors.As(err, &invalid) && text == invalid.Error():
		f := invalid.GetFlag()
		name := "--" + f.Name
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			name = "-" + f.Shorthand + ", " + name
		}
		return loc.T("cli.error.invalid_value", "Value", strconv.Quote(invalid.GetValue()), "Flag", strconv.Quote(name), "Cause", valueCause(errors.Unwrap(invalid), loc))
	case errors.As(err, &syntax) && text == syntax.Error():
		return loc.T("cli.error.flag_syntax", "Flag", syntax.GetSpecifiedFlag())
	}
	for _, e := range cobraErrors {
		m := e.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		kv := make([]any, 0, 2*len(e.fields))
		count, counted := 0, false
		for i, name := range e.fields {
			v := m[i+1]
			switch name {
			case "Count":
				count, _ = strconv.Atoi(v)
				counted = true
				continue
			case "Suggestions":
				if v != "" {
					v = "\n\n" + loc.T("cli.error.did_you_mean") + "\n" + strings.SplitN(v, "\n", 4)[3]
				}
			}
			kv = append(kv, name, v)
		}
		if counted {
			return loc.N(e.id, count, kv...)
		}
		return loc.T(e.id, kv...)
	}
	return loc.Error(err)
}

// newHelpCmd is `kata help [COMMAND]`: cobra's own help, except that a command kata does not
// have is an error (exit 2) instead of a usage text with exit 0.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "Help about any command",
		RunE: func(cmd *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || target == nil || len(rest) > 0 {
				var names []string
				for _, c := range root.Commands() {
					if c.IsAvailableCommand() {
						names = append(names, c.Name())
					}
				}
				return fmt.Errorf("help: no command %q (commands: %s)", strings.Join(args, " "), strings.Join(names, ", "))
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
	}
}
