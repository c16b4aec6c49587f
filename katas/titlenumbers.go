package katas

import (
	"regexp"
	"strings"
	"unicode"
)

// numberWords maps number words of the languages kata speaks (English, Spanish, Russian, with
// the Russian case forms a title uses) to their value, zero to twenty and the tens to sixty, so
// a title that says "Thirty" is matched with a key that says "30". The Spanish articles "un"
// and "una" are left out: they are not numbers in a title.
var numberWords = map[string]string{}

func init() {
	for value, forms := range map[string]string{
		"0":  "zero cero ноль нуль",
		"1":  "one uno один одна одно одну одной одного одним одном",
		"2":  "two dos два две двух двум двумя",
		"3":  "three tres три трёх трех трём трем тремя",
		"4":  "four cuatro четыре четырёх четырех четырём четырем",
		"5":  "five cinco пять пяти",
		"6":  "six seis шесть шести",
		"7":  "seven siete семь семи",
		"8":  "eight ocho восемь восьми",
		"9":  "nine nueve девять девяти",
		"10": "ten diez десять десяти",
		"11": "eleven once одиннадцать одиннадцати",
		"12": "twelve doce двенадцать двенадцати",
		"13": "thirteen trece тринадцать тринадцати",
		"14": "fourteen catorce четырнадцать четырнадцати",
		"15": "fifteen quince пятнадцать пятнадцати",
		"16": "sixteen dieciséis шестнадцать шестнадцати",
		"17": "seventeen diecisiete семнадцать семнадцати",
		"18": "eighteen dieciocho восемнадцать восемнадцати",
		"19": "nineteen diecinueve девятнадцать девятнадцати",
		"20": "twenty veinte двадцать двадцати",
		"30": "thirty treinta тридцать тридцати",
		"40": "forty cuarenta сорок сорока",
		"50": "fifty cincuenta пятьдесят пятидесяти",
		"60": "sixty sesenta шестьдесят шестидесяти",
	} {
		for _, f := range strings.Fields(forms) {
			numberWords[f] = value
		}
	}
}

// digitsPattern finds a number written in digits, thousands separators allowed ("1,200",
// "1.200", "1 200").
var digitsPattern = regexp.MustCompile(`\p{Nd}+(?:[,.\x{00A0} ]\p{Nd}{3})*`)

// numbers returns the distinct numbers a text names, in digits or in words, each as its
// digits without separators ("Thirty" and "30" both give "30").
func numbers(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		n = strings.TrimLeft(n, "0")
		if n == "" {
			n = "0"
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, m := range digitsPattern.FindAllString(text, -1) {
		add(strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return r
			}
			return -1
		}, m))
	}
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if v, ok := numberWords[f]; ok {
			add(v)
		}
	}
	return out
}

// titleNumbers returns the numbers of an item's title (numbers) that a key names and no
// distractor does: a title that says "Thirty" over a key that says "30 seconds" gives it away
// in any language, which the word check (words under four letters, "30", are not words) misses.
func titleNumbers(it Item) []string {
	inKey, inDistractor := map[string]bool{}, map[string]bool{}
	for _, o := range it.Options {
		for _, n := range numbers(o.Text) {
			if o.Key {
				inKey[n] = true
			} else {
				inDistractor[n] = true
			}
		}
	}
	var out []string
	for _, n := range numbers(it.Title) {
		if inKey[n] && !inDistractor[n] {
			out = append(out, n)
		}
	}
	return out
}

// checkTitleNumbers warns at the heading of every item of a bank (exam.md or a locale twin,
// read from exam) whose title names a number only its key has (titleNumbers).
func checkTitleNumbers(exam string, items []Item, ws *Problems) {
	for _, it := range items {
		if ns := titleNumbers(it); len(ns) > 0 {
			ws.add(exam, it.Line, "item %s: the title %q names %s, a number in the key and in no distractor; a title gives nothing away", it.ID, it.Title, strings.Join(ns, ", "))
		}
	}
}
