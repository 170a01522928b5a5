package storcast

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/internal/redact"
)

// MaxBodyBytes bounds what the client reads from one storcast response.
const MaxBodyBytes = 32 << 20

// Client calls one storcast server. It is safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
}

// New returns a client of the storcast at baseURL (scheme and host, and an
// optional path prefix when storcast sits behind a reverse proxy). token, when
// not empty, is sent as "Authorization: Bearer <token>". hc may be nil for
// http.DefaultClient's transport; timeouts come from the callers' contexts.
func New(baseURL, token string, hc *http.Client) (*Client, error) {
	u, err := ParseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{base: u, token: token, http: hc}, nil
}

// ParseURL checks that s is an absolute http or https URL without user
// information, query or fragment, and returns it with any trailing slash
// removed.
func ParseURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("storcast URL is empty: set it in the data source settings, e.g. http://storcast:9595")
	}
	u, err := url.Parse(s)
	if err != nil {
		// Not s, nor err (which quotes s): a password in it would be shown.
		return nil, fmt.Errorf("storcast URL: %v", rootCause(err))
	}
	if u.User != nil {
		// The URL is shown (Save & test, its details, errors): a password
		// in it would be too. Basic auth has its own, secret, settings.
		return nil, fmt.Errorf("storcast URL %s: must not hold a user or password; set them in the data source's basic auth settings (user, password)", u.Redacted())
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("storcast URL %q: scheme must be http or https", redact.Userinfo(s))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("storcast URL %q: no host", redact.Userinfo(s))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("storcast URL %q: must not have a query or fragment", redact.Userinfo(s))
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// URL returns the base URL the client calls.
func (c *Client) URL() string { return c.base.String() }

// BuildInfo calls GET /api/v1/status/buildinfo.
func (c *Client) BuildInfo(ctx context.Context) (apiv1.BuildInfo, error) {
	var out apiv1.BuildInfo
	err := c.do(ctx, http.MethodGet, "/api/v1/status/buildinfo", nil, nil, &out, nil)
	return out, err
}

// Clusters calls GET /api/v1/clusters.
func (c *Client) Clusters(ctx context.Context) ([]apiv1.Cluster, error) {
	var out []apiv1.Cluster
	err := c.do(ctx, http.MethodGet, "/api/v1/clusters", nil, nil, &out, nil)
	return out, err
}

// ForecastParams are the parameters of GET /api/v1/forecast.
type ForecastParams struct {
	Cluster    string
	Series     string // iops, max_iops, headroom_ratio, utilization_ratio
	Start, End time.Time
	Step       time.Duration
}

// Query returns the URL query of p, with times as Unix seconds and the step
// in seconds, as the API documents.
func (p ForecastParams) Query() url.Values {
	start, end, step := p.seconds()
	v := url.Values{}
	v.Set("cluster", p.Cluster)
	v.Set("series", p.Series)
	v.Set("start", strconv.FormatFloat(start, 'f', -1, 64))
	v.Set("end", strconv.FormatFloat(end, 'f', -1, 64))
	v.Set("step", strconv.FormatFloat(step, 'f', -1, 64))
	return v
}

// seconds are p's start, end and step as Query sends them.
func (p ForecastParams) seconds() (start, end, step float64) {
	return UnixSeconds(p.Start), UnixSeconds(p.End), p.Step.Seconds()
}

// UnixSeconds is t as the client sends a time: Unix seconds, to the
// millisecond.
func UnixSeconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

// maxPoints is the most points storcast answers p with: one a step from start
// to end, floor((end-start)/step) + 1 as apiv1.CheckForecastRange counts them,
// and never more than apiv1.MaxForecastPoints.
func (p ForecastParams) maxPoints() int {
	start, end, step := p.seconds()
	n := max(math.Floor((end-start)/step)+1, 0)
	if !(n <= apiv1.MaxForecastPoints) { // also NaN, from a zero step and span
		return apiv1.MaxForecastPoints
	}
	return int(n)
}

// Forecast calls GET /api/v1/forecast.
func (c *Client) Forecast(ctx context.Context, p ForecastParams) (apiv1.Forecast, error) {
	var out apiv1.Forecast
	limit := p.maxPoints()
	err := c.do(ctx, http.MethodGet, "/api/v1/forecast", p.Query(), nil, &out, func() string {
		return tooMany(len(out.Points), limit)
	})
	if err != nil {
		return apiv1.Forecast{}, err // not what it decoded: it may be huge
	}
	return out, nil
}

// tooMany says what is wrong with an answer of n points where the request
// asks for at most limit, or is "" when n is within. A point of "{}," is 3
// bytes of JSON but 32 decoded and more in a frame: an answer under
// MaxBodyBytes that is not storcast's could cost gigabytes.
func tooMany(n, limit int) string {
	if n <= limit {
		return ""
	}
	return fmt.Sprintf("the answer has %d points; the request asks for at most %d", n, limit)
}

// LatencyCurve calls GET /api/v1/latency_curve.
func (c *Client) LatencyCurve(ctx context.Context, cluster string) (apiv1.LatencyCurve, error) {
	var out apiv1.LatencyCurve
	err := c.do(ctx, http.MethodGet, "/api/v1/latency_curve", url.Values{"cluster": {cluster}}, nil, &out, nil)
	return out, err
}

// CapacityCurve calls GET /api/v1/capacity_curve. ioSizeBytes <= 0 and
// points <= 0 leave the choice to storcast (today's mean IO size, its
// default number of points).
func (c *Client) CapacityCurve(ctx context.Context, cluster string, ioSizeBytes float64, points int) (apiv1.CapacityCurve, error) {
	v := url.Values{"cluster": {cluster}}
	if ioSizeBytes > 0 {
		v.Set("io_size_bytes", strconv.FormatFloat(ioSizeBytes, 'f', -1, 64))
	}
	limit := apiv1.MaxCurvePoints // storcast's default is within it
	if points > 0 {
		v.Set("points", strconv.Itoa(points))
		limit = min(points, apiv1.MaxCurvePoints)
	}
	var out apiv1.CapacityCurve
	err := c.do(ctx, http.MethodGet, "/api/v1/capacity_curve", v, nil, &out, func() string {
		return tooMany(len(out.Points), limit)
	})
	if err != nil {
		return apiv1.CapacityCurve{}, err
	}
	return out, nil
}

// RuleSets calls GET /api/v1/rulesets.
func (c *Client) RuleSets(ctx context.Context, cluster string) (apiv1.RuleSets, error) {
	var out apiv1.RuleSets
	err := c.do(ctx, http.MethodGet, "/api/v1/rulesets", url.Values{"cluster": {cluster}}, nil, &out, nil)
	return out, err
}

// WhatIf calls POST /api/v1/whatif.
func (c *Client) WhatIf(ctx context.Context, req apiv1.WhatIfRequest) (apiv1.WhatIfResult, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return apiv1.WhatIfResult{}, &Error{Kind: Internal, Msg: "encoding the what-if request: " + err.Error()}
	}
	var out apiv1.WhatIfResult
	err = c.do(ctx, http.MethodPost, "/api/v1/whatif", nil, body, &out, nil)
	return out, err
}

// do calls storcast and decodes the data of its answer into out; check, when
// not nil, then says what is wrong with out ("" if nothing), a bad response.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body []byte, out any, check func() string) error {
	u := *c.base
	u.Path += path
	if query != nil {
		u.RawQuery = query.Encode()
	}
	endpoint := method + " " + u.Path

	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return &Error{Kind: Internal, Endpoint: endpoint, Msg: err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}

	resp, err := c.http.Do(req)
	if err != nil {
		return transportError(ctx, endpoint, c.base.Host, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return transportError(ctx, endpoint, c.base.Host, err)
	}
	if len(raw) > MaxBodyBytes {
		return &Error{Kind: BadResponse, Endpoint: endpoint, HTTPStatus: resp.StatusCode,
			Msg: fmt.Sprintf("response larger than %d bytes", MaxBodyBytes)}
	}

	env, err := apiv1.ParseEnvelope(raw)
	if err != nil {
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			// exporter-toolkit's basic auth answers a plain 401.
			return &Error{Kind: Unauthorized, Endpoint: endpoint, HTTPStatus: resp.StatusCode,
				Msg: fmt.Sprintf("HTTP 401 (%s): storcast, or a proxy in front of it, wants credentials: set the basic auth user and password (storcast's web.config_file) or the token in the data source settings", snippet(raw))}
		case http.StatusForbidden:
			return &Error{Kind: Unauthorized, Endpoint: endpoint, HTTPStatus: resp.StatusCode,
				Msg: fmt.Sprintf("HTTP 403 (%s): storcast, or a proxy in front of it, refuses these credentials", snippet(raw))}
		}
		return &Error{Kind: kindOfHTTPStatus(resp.StatusCode, BadResponse), Endpoint: endpoint, HTTPStatus: resp.StatusCode,
			Msg: fmt.Sprintf("not a storcast API response (HTTP %d, %s): is the URL that of storcast?", resp.StatusCode, snippet(raw))}
	}
	if env.Status == "error" {
		return &Error{Kind: kindOf(env.ErrorType, resp.StatusCode), Endpoint: endpoint, HTTPStatus: resp.StatusCode,
			ErrorType: env.ErrorType, Msg: env.Error}
	}
	if resp.StatusCode/100 != 2 {
		return &Error{Kind: kindOfHTTPStatus(resp.StatusCode, Internal), Endpoint: endpoint, HTTPStatus: resp.StatusCode,
			Msg: fmt.Sprintf("HTTP %d with a success envelope", resp.StatusCode)}
	}
	if len(env.Data) == 0 || string(env.Data) == "null" {
		return &Error{Kind: BadResponse, Endpoint: endpoint, HTTPStatus: resp.StatusCode, Msg: "success envelope without data"}
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		return &Error{Kind: BadResponse, Endpoint: endpoint, HTTPStatus: resp.StatusCode, Msg: "decoding data: " + err.Error()}
	}
	if check != nil {
		if msg := check(); msg != "" {
			return &Error{Kind: BadResponse, Endpoint: endpoint, HTTPStatus: resp.StatusCode, Msg: msg}
		}
	}
	return nil
}

func transportError(ctx context.Context, endpoint, host string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return &Error{Kind: Timeout, Endpoint: endpoint, Msg: "storcast at " + host + " did not answer in time", cause: err}
		}
		return &Error{Kind: Canceled, Endpoint: endpoint, Msg: "request canceled", cause: err}
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return &Error{Kind: Timeout, Endpoint: endpoint, Msg: "storcast at " + host + " did not answer in time", cause: err}
	}
	return &Error{Kind: Unreachable, Endpoint: endpoint, Msg: "storcast at " + host + " is unreachable: " + rootCause(err), cause: err}
}

// rootCause strips the url.Error wrapping ("Get \"http://...\": ") that only
// repeats what Endpoint says.
func rootCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "empty body"
	}
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return strconv.Quote(s)
}
