package storcast

import (
	"errors"
	"net/http"

	"github.com/storcast/storcast/exporter/apiv1"
)

// Kind classifies what failed in a call to storcast.
type Kind int

// The kinds of failure; see the package documentation for their meaning.
const (
	Unreachable Kind = iota + 1
	Timeout
	Canceled
	BadData
	NotFound
	Unavailable
	Internal
	BadResponse
	Unauthorized
)

var kindNames = map[Kind]string{
	Unreachable:  "unreachable",
	Timeout:      "timeout",
	Canceled:     "canceled",
	BadData:      "bad data",
	NotFound:     "not found",
	Unavailable:  "unavailable",
	Internal:     "internal",
	BadResponse:  "bad response",
	Unauthorized: "unauthorized",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "unknown"
}

// Error is a failed call to storcast.
type Error struct {
	Kind       Kind
	Endpoint   string // "GET /api/v1/forecast"
	HTTPStatus int    // 0 when no response came
	ErrorType  string // the envelope's errorType, if any
	Msg        string // storcast's message, or what went wrong on the way
	cause      error
}

func (e *Error) Error() string {
	if e.Endpoint == "" {
		return "storcast: " + e.Msg
	}
	return "storcast " + e.Endpoint + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.cause }

// KindOf returns the Kind of err when it is (or wraps) an *Error, and 0
// otherwise.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// kindOf maps an envelope's errorType, falling back on the HTTP status when
// the type is one this client does not know.
func kindOf(errorType string, httpStatus int) Kind {
	switch errorType {
	case apiv1.ErrBadData:
		return BadData
	case apiv1.ErrNotFound:
		return NotFound
	case apiv1.ErrUnavailable:
		return Unavailable
	case apiv1.ErrInternal:
		return Internal
	}
	return kindOfHTTPStatus(httpStatus, Internal)
}

func kindOfHTTPStatus(status int, otherwise Kind) Kind {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return BadData
	case http.StatusNotFound:
		return NotFound
	case http.StatusServiceUnavailable:
		return Unavailable
	case http.StatusGatewayTimeout:
		return Timeout
	case http.StatusBadGateway:
		return Unreachable
	case http.StatusUnauthorized, http.StatusForbidden:
		return Unauthorized
	}
	return otherwise
}
