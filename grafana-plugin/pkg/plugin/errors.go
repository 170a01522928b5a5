package plugin

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"

	"github.com/storcast/storcast/grafana-plugin/pkg/storcast"
)

// StatusServiceUnavailable is what a query gets while storcast has no fitted
// model for the cluster; the SDK names no such status.
const StatusServiceUnavailable = backend.Status(http.StatusServiceUnavailable)

func badQuery(err error) backend.DataResponse {
	return backend.ErrDataResponseWithSource(backend.StatusBadRequest, backend.ErrorSourcePlugin, "bad query: "+err.Error())
}

// statusOf maps what failed in a storcast call to the status Grafana shows.
func statusOf(k storcast.Kind) backend.Status {
	switch k {
	case storcast.Unreachable, storcast.BadResponse:
		return backend.StatusBadGateway
	case storcast.Timeout, storcast.Canceled:
		return backend.StatusTimeout
	case storcast.BadData:
		return backend.StatusBadRequest
	case storcast.NotFound:
		return backend.StatusNotFound
	case storcast.Unavailable:
		return StatusServiceUnavailable
	case storcast.Unauthorized:
		return backend.StatusUnauthorized
	}
	return backend.StatusInternal
}

// storcastError turns a failed storcast call into the query's response. For
// an unknown cluster it adds the clusters storcast does serve, when it can
// learn them quickly.
func (d *Datasource) storcastError(ctx context.Context, err error) backend.DataResponse {
	k := storcast.KindOf(err)
	msg := err.Error()
	if k == storcast.NotFound {
		if names := d.clusterNames(ctx); len(names) > 0 {
			msg += "; storcast serves: " + strings.Join(names, ", ")
		}
	}
	return backend.ErrDataResponseWithSource(statusOf(k), backend.ErrorSourceDownstream, msg)
}

func (d *Datasource) clusterNames(ctx context.Context) []string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	cls, err := d.client.Clusters(ctx)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(cls))
	for _, c := range cls {
		names = append(names, c.Name)
	}
	return names
}
