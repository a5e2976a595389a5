package uci

import (
	"context"
	"fmt"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/csv"
)

// DermatologyColumns are the column names of dermatology.data, in file
// order (attributes 1–34 of dermatology.names, then the class).
var DermatologyColumns = []string{
	"erythema", "scaling", "definite_borders", "itching", "koebner_phenomenon",
	"polygonal_papules", "follicular_papules", "oral_mucosal_involvement",
	"knee_and_elbow_involvement", "scalp_involvement", "family_history",
	"melanin_incontinence", "eosinophils_in_the_infiltrate", "PNL_infiltrate",
	"fibrosis_of_the_papillary_dermis", "exocytosis", "acanthosis",
	"hyperkeratosis", "parakeratosis", "clubbing_of_the_rete_ridges",
	"elongation_of_the_rete_ridges", "thinning_of_the_suprapapillary_epidermis",
	"spongiform_pustule", "munro_microabcess", "focal_hypergranulosis",
	"disappearance_of_the_granular_layer", "vacuolisation_and_damage_of_basal_layer",
	"spongiosis", "saw-tooth_appearance_of_retes", "follicular_horn_plug",
	"perifollicular_parakeratosis", "inflammatory_monoluclear_inflitrate",
	"band-like_infiltrate", "age", "class",
}

// DermatologyClasses are the diseases of class codes 1–6.
var DermatologyClasses = []string{
	"psoriasis", "seboreic dermatitis", "lichen planus", "pityriasis rosea",
	"cronic dermatitis", "pityriasis rubra pilaris",
}

func init() {
	datasets.RegisterTyped("dermatology", datasets.TypedLoader[dermatologyParams]{
		Doc:   "UCI dermatology: 366 patients × 34 attributes (age has 8 missing), 6 diseases",
		Files: func(p dermatologyParams) []string { return []string{p.File} },
		Load: func(_ context.Context, env datasets.Env, p dermatologyParams) (*datasets.Dataset, error) {
			o := csv.DefaultOptions()
			o.Header, o.Columns, o.Label = false, DermatologyColumns, "class"
			o.Task = csv.TaskClassification
			o.Missing, o.Drop = p.Missing, p.Drop
			d, err := loadCSV(env, p.File, uciSource+": dermatology.data", o)
			if err != nil {
				return nil, err
			}
			d.Name = "dermatology"
			if err := renameClasses(d, DermatologyClasses); err != nil {
				return nil, fmt.Errorf("%s: %w", p.File, err)
			}
			return d, nil
		},
	})
}

// dermatologyParams are the parameters of dermatology.
type dermatologyParams struct {
	File    string   `param:"file" default:"uci/dermatology/dermatology.data" doc:"dermatology.data, relative to the data directory"`
	Missing string   `param:"missing" enum:"error|drop-rows|mean" default:"mean" doc:"the 8 missing ages: mean-impute (with a note), drop their rows, or fail"`
	Drop    []string `param:"drop" default:"[]" doc:"columns left out; Jebara 2004's 33 inputs: [age] (the paper does not say which; age is the one non-ordinal attribute and the only one with missing values)"`
}
