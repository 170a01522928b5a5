package config

import (
	"strings"
	"testing"
)

// TestLoadCalibrationFile: YAML and fio JSON by extension or format, and
// errors that name the file.
func TestLoadCalibrationFile(t *testing.T) {
	yml, err := LoadCalibrationFile("../engine/testdata/calibration.yml", "")
	if err != nil || len(yml.Points) != 2 || yml.Points[0].ReadIOPS != 12000 {
		t.Errorf("yaml: %+v %v", yml, err)
	}
	fio, err := LoadCalibrationFile("../../forecaster/conservation/testdata/fio-rbd.json", "")
	if err != nil || len(fio.Points) == 0 {
		t.Errorf("fio by extension: %+v %v", fio, err)
	}
	if _, err := LoadCalibrationFile("../../forecaster/conservation/testdata/fio-rbd.json", "yaml"); err == nil {
		t.Error("fio JSON read as YAML without error")
	}
	if _, err := LoadCalibrationFile("../engine/testdata/nope.yml", ""); err == nil || !strings.Contains(err.Error(), "nope.yml") {
		t.Errorf("missing file: %v", err)
	}
}
