package lsq

import (
	"fmt"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// model is a fitted linear regression model.
type model struct {
	beta      []float64 // original scale
	intercept float64
	info      methods.Info
	artifacts []methods.Artifact
}

func (m *model) Predict(X matrix.Matrix) *methods.Prediction {
	n, d := X.Dims()
	if d != len(m.beta) {
		panic(fmt.Sprintf("lsq: Predict: %d columns, model has %d", d, len(m.beta)))
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = m.intercept + X.RowDot(i, m.beta)
	}
	return &methods.Prediction{Values: out}
}

func (m *model) Info() methods.Info { return m.info }

func (m *model) Artifacts() []methods.Artifact { return m.artifacts }

// NewModel returns a regression Model predicting intercept + xᵀbeta,
// reporting info and the given artifacts.
func NewModel(beta []float64, intercept float64, info methods.Info, artifacts ...methods.Artifact) methods.Model {
	return &model{beta: beta, intercept: intercept, info: info, artifacts: artifacts}
}

// Coef returns the original-scale coefficients and intercept of a model
// built by NewModel; ok is false for any other model.
func Coef(m methods.Model) (beta []float64, intercept float64, ok bool) {
	lm, ok := m.(*model)
	if !ok {
		return nil, 0, false
	}
	return lm.beta, lm.intercept, true
}
