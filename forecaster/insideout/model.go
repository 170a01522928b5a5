package insideout

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Target is an end-to-end performance series the model predicts.
type Target string

// The four targets of the paper: read/write IOPS and read/write throughput.
const (
	ReadIOPS   Target = "read_iops"
	WriteIOPS  Target = "write_iops"
	ReadBytes  Target = "read_bytes_per_second"
	WriteBytes Target = "write_bytes_per_second"
)

// Targets lists the standard targets in a fixed order.
var Targets = []Target{ReadIOPS, WriteIOPS, ReadBytes, WriteBytes}

// ThresholdScore is the cross-validated score of one threshold of the grid,
// at its best Lasso alpha.
type ThresholdScore struct {
	Threshold float64 `json:"threshold"`
	Kept      int     `json:"kept"` // features kept by the Ridge filter
	Alpha     float64 `json:"alpha"`
	CVMAPE    float64 `json:"cvMape"`
}

// TargetModel is the fitted model of one target: ŷ = Intercept + Coef·x on
// the raw (unstandardized) feature vector. Coef has one entry per feature of
// the Model; features dropped by the Ridge filter or zeroed by the Lasso
// have coefficient 0.
type TargetModel struct {
	Threshold  float64          `json:"threshold"` // chosen a: keep |ridge coef| ≥ a·median
	Alpha      float64          `json:"alpha"`     // chosen Lasso alpha (standardized features)
	Kept       []string         `json:"kept"`      // features that passed the Ridge filter
	Selected   []string         `json:"selected"`  // features with a non-zero Lasso coefficient
	Coef       []float64        `json:"coef"`
	Intercept  float64          `json:"intercept"`
	CVMAPE     float64          `json:"cvMape"`     // k-fold CV MAPE at the chosen (a, alpha)
	CVAccuracy float64          `json:"cvAccuracy"` // max(1 − CVMAPE, 0)
	Grid       []ThresholdScore `json:"grid"`
}

// Predict returns Intercept + Coef·x.
func (t *TargetModel) Predict(x []float64) float64 {
	s := t.Intercept
	for j, w := range t.Coef {
		if w != 0 {
			s += w * x[j]
		}
	}
	return s
}

// Model is a fitted Inside-Out model: one TargetModel per target over a
// shared feature layout. It is plain data and round-trips through
// encoding/json, so the exporter can persist it.
type Model struct {
	// Schema is the aggregation layout; empty when trained with TrainMatrix.
	Schema   Schema                  `json:"schema"`
	Features []string                `json:"features"`
	Samples  int                     `json:"samples"`
	Folds    int                     `json:"folds"`
	Targets  map[Target]*TargetModel `json:"targets"`
	// FeatureMin and FeatureMax are each feature's range over the training
	// samples, in raw units: a prediction holds every feature inside it
	// (PredictFeatures). Empty in a model persisted before they existed,
	// which then predicts unclamped.
	FeatureMin []float64 `json:"featureMin,omitempty"`
	FeatureMax []float64 `json:"featureMax,omitempty"`
	// Skipped holds, for each target that could not be fitted, why (for
	// example a constant write rate on a read-only cluster).
	Skipped map[Target]string `json:"skipped,omitempty"`
	// DroppedWindows counts the windows Train left out (gaps), and
	// DropReason says why the first one was dropped.
	DroppedWindows int    `json:"droppedWindows,omitempty"`
	DropReason     string `json:"dropReason,omitempty"`
}

// Validate checks a (typically decoded) model for consistency.
func (m *Model) Validate() error {
	if m == nil {
		return errors.New("insideout: model: nil")
	}
	p := len(m.Features)
	if p == 0 {
		return errors.New("insideout: model: no features")
	}
	if len(m.Schema.Roles) > 0 && m.Schema.NumFeatures() != p {
		return fmt.Errorf("insideout: model: schema has %d features, model %d", m.Schema.NumFeatures(), p)
	}
	if len(m.FeatureMin) != len(m.FeatureMax) || (len(m.FeatureMin) != 0 && len(m.FeatureMin) != p) {
		return fmt.Errorf("insideout: model: feature range: %d minima and %d maxima for %d features", len(m.FeatureMin), len(m.FeatureMax), p)
	}
	for j := range m.FeatureMin {
		lo, hi := m.FeatureMin[j], m.FeatureMax[j]
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo > hi {
			return fmt.Errorf("insideout: model: feature %q: range [%v, %v] is not a finite interval", m.Features[j], lo, hi)
		}
	}
	for t, tm := range m.Targets {
		if tm == nil || len(tm.Coef) != p {
			return fmt.Errorf("insideout: model: target %q: want %d coefficients", t, p)
		}
		for _, v := range append([]float64{tm.Intercept}, tm.Coef...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("insideout: model: target %q: non-finite coefficient", t)
			}
		}
	}
	return nil
}

// Predict aggregates one window with the model's schema and predicts every
// fitted target. The window may hold any number of hosts per role.
func (m *Model) Predict(w Window) (map[Target]float64, error) {
	if len(m.Schema.Roles) == 0 {
		return nil, errors.New("insideout: model was trained on a feature matrix; use PredictFeatures")
	}
	x, err := m.Schema.Aggregate(w)
	if err != nil {
		return nil, err
	}
	return m.PredictFeatures(x)
}

// PredictFeatures predicts every fitted target from a feature vector laid
// out as m.Features. The model is linear and only evidence inside the host
// states it was trained on: each feature is first held inside its training
// range (a host metric that sat near 0 while the model learned, such as
// the disk reads of memstore OSDs, otherwise turns a few reads a second
// into hundreds of thousands of IOPS through the large coefficient its
// small spread earned). Every target is a rate (operations or bytes per
// second), so a prediction below zero is clamped to 0.
func (m *Model) PredictFeatures(x []float64) (map[Target]float64, error) {
	if len(x) != len(m.Features) {
		return nil, fmt.Errorf("insideout: features: length %d, model has %d", len(x), len(m.Features))
	}
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("insideout: features: %s is %v", m.Features[j], v)
		}
	}
	held := append([]float64(nil), x...)
	for j := range m.FeatureMin {
		held[j] = math.Min(math.Max(held[j], m.FeatureMin[j]), m.FeatureMax[j])
	}
	out := make(map[Target]float64, len(m.Targets))
	for t, tm := range m.Targets {
		out[t] = math.Max(tm.Predict(held), 0)
	}
	return out, nil
}

// Score returns, per fitted target present in measured, the accuracy
// max(1 − MAPE, 0) of the model on recent windows. Windows that cannot be
// aggregated and measured values that are zero (MAPE is undefined there),
// NaN or ±Inf are left out; a target with nothing left is an error.
func (m *Model) Score(windows []Window, measured map[Target][]float64) (map[Target]float64, error) {
	if len(m.Schema.Roles) == 0 {
		return nil, errors.New("insideout: model was trained on a feature matrix; use ScoreFeatures")
	}
	for t, y := range measured {
		if len(y) != len(windows) {
			return nil, fmt.Errorf("insideout: measured %q: length %d does not match %d windows", t, len(y), len(windows))
		}
	}
	p := m.Schema.NumFeatures()
	var data []float64
	var keep []int
	for i, w := range windows {
		row, err := m.Schema.aggregateInto(data[len(data):], w, nil)
		if err != nil {
			continue
		}
		data = append(data, row...)
		keep = append(keep, i)
	}
	if len(keep) == 0 {
		return nil, errors.New("insideout: Score: no window could be aggregated")
	}
	sub := make(map[Target][]float64, len(measured))
	for t, y := range measured {
		ky := make([]float64, len(keep))
		for r, i := range keep {
			ky[r] = y[i]
		}
		sub[t] = ky
	}
	return m.ScoreFeatures(mat.NewDense(len(keep), p, data), sub)
}

// ScoreFeatures is Score on an already aggregated n×p feature matrix
// (zero, NaN and ±Inf measured values are left out). It scores the linear
// model itself, not the held prediction PredictFeatures serves: the score
// asks whether the hosts' metrics still explain the load (the retrain
// trigger), and hosts that left the training range are the first sign they
// do not, which holding would hide.
func (m *Model) ScoreFeatures(X mat.Matrix, measured map[Target][]float64) (map[Target]float64, error) {
	n, p := X.Dims()
	if p != len(m.Features) {
		return nil, fmt.Errorf("insideout: X: %d columns, model has %d features", p, len(m.Features))
	}
	out := map[Target]float64{}
	row := make([]float64, p)
	for t, y := range measured {
		tm, ok := m.Targets[t]
		if !ok {
			continue
		}
		if len(y) != n {
			return nil, fmt.Errorf("insideout: measured %q: length %d does not match %d samples", t, len(y), n)
		}
		var s float64
		var cnt int
		for i, yi := range y {
			if yi == 0 || math.IsNaN(yi) || math.IsInf(yi, 0) {
				continue
			}
			mat.Row(row, i, X)
			s += math.Abs(tm.Predict(row)-yi) / math.Abs(yi)
			cnt++
		}
		if cnt == 0 {
			return nil, fmt.Errorf("insideout: measured %q: no non-zero finite value; accuracy is undefined", t)
		}
		out[t] = math.Max(1-s/float64(cnt), 0)
	}
	return out, nil
}

// NeedsRetrain reports whether any target's accuracy (from Score) is below
// threshold: the paper's self-learning trigger (its Fig. 8).
func NeedsRetrain(accuracy map[Target]float64, threshold float64) bool {
	for _, a := range accuracy {
		if a < threshold {
			return true
		}
	}
	return false
}
