package apiv1

import (
	"encoding/json"
	"fmt"
)

// RawEnvelope is Envelope as a client reads it: Data is left undecoded, for
// the endpoint's own type.
type RawEnvelope struct {
	Status    string          `json:"status"` // "success" or "error"
	Data      json.RawMessage `json:"data,omitempty"`
	ErrorType string          `json:"errorType,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// ParseEnvelope decodes a response body (read by the caller, within its own
// limit). It fails when body is not a JSON object or its status is neither
// "success" nor "error"; an error envelope is returned without error, for
// the caller to report ErrorType and Error its own way.
func ParseEnvelope(body []byte) (RawEnvelope, error) {
	var env RawEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return RawEnvelope{}, err
	}
	if env.Status != "success" && env.Status != "error" {
		return RawEnvelope{}, fmt.Errorf("status %q is neither success nor error", env.Status)
	}
	return env, nil
}
