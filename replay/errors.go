package replay

import "fmt"

// OptionError is a bad option value: New refuses it before anything is
// replayed. Option is the option's name ("Speed", "Sessions", "WithEnv",
// …), so that a program can say which of its own settings was wrong.
type OptionError struct {
	Option string
	Value  string
	Err    error
}

func (e *OptionError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("replay: %s: %v", e.Option, e.Err)
	}
	return fmt.Sprintf("replay: %s(%q): %v", e.Option, e.Value, e.Err)
}

func (e *OptionError) Unwrap() error { return e.Err }

// ConfigError is a config (ConfigFile, Config) whose content cannot be
// used: Path and Section say where ("transformations", "chaos.faults").
type ConfigError struct {
	Path    string
	Section string
	Err     error
}

func (e *ConfigError) Error() string {
	switch {
	case e.Section == "":
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	case e.Path == "":
		return fmt.Sprintf("config %s: %v", e.Section, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.Path, e.Section, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// bad is an OptionError.
func bad(option string, value any, err error) *OptionError {
	return &OptionError{Option: option, Value: fmt.Sprint(value), Err: err}
}
