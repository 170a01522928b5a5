package plugin

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/grafana/grafana-plugin-sdk-go/backend/httpclient"
	"github.com/grafana/grafana-plugin-sdk-go/backend/instancemgmt"
	"github.com/grafana/grafana-plugin-sdk-go/backend/log"
	"github.com/grafana/grafana-plugin-sdk-go/backend/resource/httpadapter"

	"github.com/storcast/storcast/grafana-plugin/pkg/models"
	"github.com/storcast/storcast/grafana-plugin/pkg/storcast"
)

// PluginID is the id in plugin.json.
const PluginID = "storcast-forecast-datasource"

// maxConcurrentQueries bounds the storcast calls one QueryData makes at once.
const maxConcurrentQueries = 4

// Without these, a missing method would only show at run time as "not
// implemented".
var (
	_ backend.QueryDataHandler      = (*Datasource)(nil)
	_ backend.CheckHealthHandler    = (*Datasource)(nil)
	_ backend.CallResourceHandler   = (*Datasource)(nil)
	_ instancemgmt.InstanceDisposer = (*Datasource)(nil)
)

// Datasource is one configured storcast data source.
type Datasource struct {
	settings    models.PluginSettings
	settingsErr error // a data source with bad settings still answers, with this error
	client      *storcast.Client
	http        *http.Client    // Grafana's HTTP client of the settings (basic auth, TLS, proxy)
	transport   *http.Transport // its innermost transport, whose idle connections Dispose closes
	resources   backend.CallResourceHandler
	logger      log.Logger
}

// NewDatasource is the instance factory Grafana's SDK calls when a data
// source is created or its settings change. Bad settings do not fail it:
// every call then answers with what is wrong, which Grafana shows.
func NewDatasource(ctx context.Context, s backend.DataSourceInstanceSettings) (instancemgmt.Instance, error) {
	d := &Datasource{logger: log.DefaultLogger.With("datasource", s.Name)}
	d.settings, d.settingsErr = models.LoadPluginSettings(s)
	if d.settingsErr == nil {
		d.http, d.transport, d.settingsErr = httpClient(ctx, s)
	}
	if d.settingsErr == nil {
		d.client, d.settingsErr = storcast.New(d.settings.URL, d.settings.Secrets.Token, d.http)
	}
	d.resources = httpadapter.New(d.resourceMux())
	return d, nil
}

// Dispose closes idle connections when the settings changed and the SDK
// made a new instance.
func (d *Datasource) Dispose() {
	if d.transport != nil {
		d.transport.CloseIdleConnections()
	}
}

// httpClient is Grafana's HTTP client for the data source's settings: the
// standard ones a data source's HTTP settings hold (basic auth, as
// storcast's web.config_file sets it; TLS with a CA certificate, a client
// certificate or without verification; Grafana's proxy). Each call is
// bounded by its context (the settings' timeout), not by the client: the
// SDK's client timeout would end a slow call as "unreachable" where the
// context says "timeout".
// The SDK wraps the transport in middlewares that do not pass
// CloseIdleConnections on: the transport itself is returned for Dispose.
func httpClient(ctx context.Context, s backend.DataSourceInstanceSettings) (*http.Client, *http.Transport, error) {
	opts, err := s.HTTPClientOptions(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("data source HTTP settings: %w", err)
	}
	var transport *http.Transport
	opts.ConfigureTransport = func(_ httpclient.Options, t *http.Transport) { transport = t }
	t := httpclient.DefaultTimeoutOptions
	if opts.Timeouts != nil {
		t = *opts.Timeouts // a copy: the SDK's defaults are shared
	}
	t.Timeout = 0
	opts.Timeouts = &t
	hc, err := httpclient.New(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("data source HTTP settings: %w", err)
	}
	return hc, transport, nil
}

// QueryData answers each query on its own; one failing query does not fail
// the others.
func (d *Datasource) QueryData(ctx context.Context, req *backend.QueryDataRequest) (*backend.QueryDataResponse, error) {
	resp := backend.NewQueryDataResponse()
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, maxConcurrentQueries)
	)
	for _, q := range req.Queries {
		wg.Add(1)
		sem <- struct{}{}
		go func(q backend.DataQuery) {
			defer func() { <-sem; wg.Done() }()
			r := d.query(ctx, q)
			mu.Lock()
			resp.Responses[q.RefID] = r
			mu.Unlock()
		}(q)
	}
	wg.Wait()
	return resp, nil
}

func (d *Datasource) query(ctx context.Context, q backend.DataQuery) (res backend.DataResponse) {
	defer func() {
		// A bug here must cost one query, not the plugin process.
		if p := recover(); p != nil {
			d.logger.Error("query panicked", "refId", q.RefID, "panic", p)
			res = backend.ErrDataResponseWithSource(backend.StatusInternal, backend.ErrorSourcePlugin, "internal error in the storcast plugin")
		}
	}()
	if d.settingsErr != nil {
		return backend.ErrDataResponseWithSource(backend.StatusBadRequest, backend.ErrorSourcePlugin, "data source settings: "+d.settingsErr.Error())
	}
	m, err := models.ParseQuery(q)
	if err != nil {
		return badQuery(err)
	}
	ctx, cancel := context.WithTimeout(ctx, d.settings.Timeout())
	defer cancel()
	switch m.QueryType {
	case models.QueryForecast:
		return d.forecast(ctx, q, m)
	case models.QueryLatencyCurve:
		return d.latencyCurve(ctx, m)
	case models.QueryCapacityCurve:
		return d.capacityCurve(ctx, m)
	case models.QueryRuleSets:
		return d.ruleSets(ctx, m)
	default: // models.QueryWhatIf; ParseQuery rejects the rest
		return d.whatIf(ctx, m)
	}
}

func (d *Datasource) forecast(ctx context.Context, q backend.DataQuery, m models.Query) backend.DataResponse {
	f, err := m.ForecastRequest(q.TimeRange, q.Interval, time.Now())
	if err != nil {
		return badQuery(err)
	}
	p := storcast.ForecastParams{Cluster: f.Cluster, Series: f.Series, Start: f.Start, End: f.End, Step: f.Step}
	fc, err := d.client.Forecast(ctx, p)
	if err != nil {
		return d.storcastError(ctx, err)
	}
	return backend.DataResponse{Frames: forecastFrames(fc, "GET /api/v1/forecast?"+p.Query().Encode())}
}

func (d *Datasource) latencyCurve(ctx context.Context, m models.Query) backend.DataResponse {
	lc, err := d.client.LatencyCurve(ctx, m.Cluster)
	if err != nil {
		return d.storcastError(ctx, err)
	}
	return backend.DataResponse{Frames: latencyFrames(lc)}
}

func (d *Datasource) capacityCurve(ctx context.Context, m models.Query) backend.DataResponse {
	c, err := m.CapacityRequest()
	if err != nil {
		return badQuery(err)
	}
	cc, err := d.client.CapacityCurve(ctx, c.Cluster, c.IOSizeBytes, c.Points)
	if err != nil {
		return d.storcastError(ctx, err)
	}
	return backend.DataResponse{Frames: capacityFrames(cc)}
}

func (d *Datasource) whatIf(ctx context.Context, m models.Query) backend.DataResponse {
	req, err := m.WhatIfRequest()
	if err != nil {
		return badQuery(err)
	}
	res, err := d.client.WhatIf(ctx, req)
	if err != nil {
		return d.storcastError(ctx, err)
	}
	return backend.DataResponse{Frames: whatIfFrames(req, res)}
}

func (d *Datasource) ruleSets(ctx context.Context, m models.Query) backend.DataResponse {
	rs, err := d.client.RuleSets(ctx, m.Cluster)
	if err != nil {
		return d.storcastError(ctx, err)
	}
	return backend.DataResponse{Frames: ruleSetFrames(rs)}
}
