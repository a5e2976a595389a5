package command

import (
	"fmt"
	"strings"
)

// The built-in placeholders: the files of a fit or a prediction, and what
// a program may need besides the grid's values.
const (
	phTrain       = "train"       // the training rows file (train only)
	phTest        = "test"        // the rows to predict (predict only)
	phModel       = "model"       // the model file train writes and predict reads
	phPredictions = "predictions" // the file predict writes (predict only)
	phDir         = "dir"         // the fit's (or prediction's) temporary directory
	phSeed        = "seed"        // the method seed, in [0, 2³¹−1]
	phWorkdir     = "workdir"     // the directory repro was started in
)

// builtins lists the built-in placeholders in documentation order.
var builtins = []string{phTrain, phTest, phModel, phPredictions, phDir, phSeed, phWorkdir}

// phaseOnly names the built-ins that only one of the two argument vectors
// may use.
var phaseOnly = map[string]string{phTrain: "train", phTest: "predict", phPredictions: "predict"}

// piece is a literal text or a placeholder of an argument.
type piece struct {
	text string
	name string // a placeholder's name; text is then ""
}

// parseArg splits an argument into literal text and placeholders:
// "{name}" is a placeholder, "{{" and "}}" are literal braces. A name is
// a letter or underscore followed by letters, digits and underscores.
func parseArg(s string) ([]piece, error) {
	var out []piece
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, piece{text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '{' && i+1 < len(s) && s[i+1] == '{', c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%q has an unclosed {; want {name}, or {{ for a literal brace", s)
			}
			name := s[i+1 : i+end]
			if !isName(name) {
				return nil, fmt.Errorf("%q has {%s}, not a placeholder name; want {name} with letters, digits and _, or {{ for a literal brace", s, name)
			}
			flush()
			out = append(out, piece{name: name})
			i += end
		case c == '}':
			return nil, fmt.Errorf("%q has a } without {; want }} for a literal brace", s)
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return out, nil
}

// isName reports whether s is a placeholder (or environment variable)
// name: a letter or _ then letters, digits and _.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// placeholders returns the placeholder names argv uses.
func placeholders(argv []string) map[string]bool {
	out := map[string]bool{}
	for _, a := range argv {
		ps, _ := parseArg(a)
		for _, p := range ps {
			if p.name != "" {
				out[p.name] = true
			}
		}
	}
	return out
}

// expand returns argv with every placeholder replaced by its value in
// vars; an argument's parse error or a name without a value is an error
// (Validate has excluded both).
func expand(argv []string, vars map[string]string) ([]string, error) {
	out := make([]string, len(argv))
	for i, a := range argv {
		ps, err := parseArg(a)
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		for _, p := range ps {
			if p.name == "" {
				b.WriteString(p.text)
				continue
			}
			v, ok := vars[p.name]
			if !ok {
				return nil, fmt.Errorf("%q: no value for {%s}", a, p.name)
			}
			b.WriteString(v)
		}
		out[i] = b.String()
	}
	return out, nil
}
