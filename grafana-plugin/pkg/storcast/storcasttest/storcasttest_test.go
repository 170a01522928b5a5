package storcasttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/storcast/storcast/exporter/apiv1"
)

// TestForecastPointBudget: the fake refuses what storcast refuses,
// floor(span/step) + 1 points over apiv1.MaxForecastPoints (it counted
// steps and took one point more).
func TestForecastPointBudget(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	start := s.Now().Unix()
	for steps, want := range map[int64]int{apiv1.MaxForecastPoints - 1: http.StatusOK, apiv1.MaxForecastPoints: http.StatusBadRequest} {
		resp, err := http.Get(fmt.Sprintf("%s/api/v1/forecast?cluster=ceph-a&series=iops&start=%d&end=%d&step=1", s.URL, start, start+steps))
		if err != nil {
			t.Fatal(err)
		}
		var env apiv1.Envelope
		json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%d steps of 1 s (%d points): %d %s %q, want %d", steps, steps+1, resp.StatusCode, env.Status, env.Error, want)
		}
	}
}
