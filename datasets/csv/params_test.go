package csv

import (
	"reflect"
	"testing"

	"github.com/repro-ml/repro/param"
)

// TestParamsChoices: the choices and defaults of task and missing,
// literals in Params' tags, are the Task and Missing constants, and the
// defaults of Params give DefaultOptions.
func TestParamsChoices(t *testing.T) {
	ds := param.Of[Params]().Params
	task, _ := param.Find(ds, "task")
	if want := []string{TaskAuto, TaskClassification, TaskRegression}; !reflect.DeepEqual(task.Choices, want) || task.Default != TaskAuto {
		t.Errorf("task: choices %v default %v; want %v default %v", task.Choices, task.Default, want, TaskAuto)
	}
	missing, _ := param.Find(ds, "missing")
	if want := []string{MissingError, MissingDropRows, MissingMean}; !reflect.DeepEqual(missing.Choices, want) || missing.Default != MissingError {
		t.Errorf("missing: choices %v default %v; want %v default %v", missing.Choices, missing.Default, want, MissingError)
	}
	p, err := param.Decode[Params](param.Values{"file": "f", "label": "y"})
	if err != nil {
		t.Fatal(err)
	}
	o, want := p.Options(), DefaultOptions()
	if o.Header != want.Header || o.Sep != want.Sep || o.Task != want.Task || o.Missing != want.Missing || o.MinClasses != want.MinClasses || o.Label != "y" {
		t.Errorf("Options of the defaults %+v; want DefaultOptions %+v with label y", o, want)
	}
}
