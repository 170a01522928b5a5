package plugin

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/grafana/grafana-plugin-sdk-go/backend"

	"github.com/storcast/storcast/grafana-plugin/pkg/storcast"
)

// CallResource serves the plugin's resources (/api/datasources/uid/<uid>/resources/...).
func (d *Datasource) CallResource(ctx context.Context, req *backend.CallResourceRequest, sender backend.CallResourceResponseSender) error {
	return d.resources.CallResource(ctx, req, sender)
}

// resourceMux routes the resources:
//
//	GET clusters   storcast's clusters with their model status (the editor's picker)
//	GET buildinfo  storcast's build info
//
// Errors are {"error": "...", "kind": "..."} with the status a query would get.
func (d *Datasource) resourceMux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /clusters", d.serveJSON(func(ctx context.Context) (any, error) { return d.client.Clusters(ctx) }))
	mux.HandleFunc("GET /buildinfo", d.serveJSON(func(ctx context.Context) (any, error) { return d.client.BuildInfo(ctx) }))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no resource " + r.Method + " " + r.URL.Path + " (have GET clusters, GET buildinfo)"})
	})
	return mux
}

// serveJSON answers with what fetch returns from storcast, asked within the
// data source's timeout, or with the error as a query would get it.
func (d *Datasource) serveJSON(fetch func(context.Context) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !d.ready(w) {
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), d.settings.Timeout())
		defer cancel()
		v, err := fetch(ctx)
		if err != nil {
			writeResourceError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
}

func (d *Datasource) ready(w http.ResponseWriter) bool {
	if d.settingsErr != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "data source settings: " + d.settingsErr.Error(), "kind": "settings"})
		return false
	}
	return true
}

func writeResourceError(w http.ResponseWriter, err error) {
	k := storcast.KindOf(err)
	writeJSON(w, int(statusOf(k)), map[string]string{"error": err.Error(), "kind": k.String()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
