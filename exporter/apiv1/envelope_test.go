package apiv1

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseEnvelope(t *testing.T) {
	for _, tc := range []struct {
		body string
		want RawEnvelope
	}{
		{`{"status":"success","data":{"version":"1"}}`, RawEnvelope{Status: "success", Data: json.RawMessage(`{"version":"1"}`)}},
		{`{"status":"success","data":null}`, RawEnvelope{Status: "success", Data: json.RawMessage(`null`)}},
		{`{"status":"error","errorType":"bad_data","error":"cluster: unknown cluster \"x\""}`,
			RawEnvelope{Status: "error", ErrorType: ErrBadData, Error: `cluster: unknown cluster "x"`}},
	} {
		got, err := ParseEnvelope([]byte(tc.body))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseEnvelope(%s) = %+v, %v; want %+v", tc.body, got, err, tc.want)
		}
	}
	for body, want := range map[string]string{
		`<html>`:              "invalid character '<' looking for beginning of value",
		`[1]`:                 "json: cannot unmarshal array into Go value of type apiv1.RawEnvelope",
		`null`:                `status "" is neither success nor error`,
		`{"data":1}`:          `status "" is neither success nor error`,
		`{"status":"failed"}`: `status "failed" is neither success nor error`,
	} {
		if _, err := ParseEnvelope([]byte(body)); err == nil || err.Error() != want {
			t.Errorf("ParseEnvelope(%s) error %v, want %s", body, err, want)
		}
	}
}

// An envelope the server writes reads back as it was sent.
func TestParseEnvelopeRoundTrip(t *testing.T) {
	b, err := json.Marshal(Envelope{Status: "success", Data: BuildInfo{Version: "1.2.3"}})
	if err != nil {
		t.Fatal(err)
	}
	env, err := ParseEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	var bi BuildInfo
	if err := json.Unmarshal(env.Data, &bi); err != nil || bi.Version != "1.2.3" {
		t.Errorf("data %s: %+v, %v", env.Data, bi, err)
	}
}
