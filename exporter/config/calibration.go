package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/storcast/storcast/forecaster/conservation"
)

// LoadCalibrationFile reads a YAML calibration or fio JSON (format "yaml",
// "fio" or "" for by extension: .json is fio).
func LoadCalibrationFile(path, format string) (conservation.Calibration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return conservation.Calibration{}, fmt.Errorf("calibration: %w", err)
	}
	if format == "" {
		format = "yaml"
		if strings.EqualFold(filepath.Ext(path), ".json") {
			format = "fio"
		}
	}
	var cal conservation.Calibration
	if format == "fio" {
		cal, err = conservation.ImportFio(data)
	} else {
		cal, err = conservation.LoadCalibration(data)
	}
	if err != nil {
		return cal, fmt.Errorf("calibration %s: %w", path, err)
	}
	return cal, nil
}
