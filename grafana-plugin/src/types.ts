import type { DataQuery, DataSourceJsonData } from '@grafana/schema';

/** The query types the backend answers (pkg/models QueryType*). */
export type QueryType = 'forecast' | 'latencyCurve' | 'capacityCurve' | 'whatIf' | 'ruleSets';

export const queryTypes: Array<{ value: QueryType; label: string; description: string }> = [
  { value: 'forecast', label: 'Forecast', description: 'A series over the time range, into the future, with its 95% band' },
  { value: 'latencyCurve', label: 'Latency curve', description: 'Predicted latency vs IOPS with its band and the observed points' },
  { value: 'capacityCurve', label: 'Capacity curve', description: 'Max IOPS vs read ratio at one IO size, with today\'s mix' },
  { value: 'whatIf', label: 'What-if', description: 'Max IOPS, utilization and latency for a changed workload or cluster' },
  { value: 'ruleSets', label: 'Rule sets', description: 'Predicted throughput boost of each traffic-control rule set for today\'s workload' },
];

export const forecastSeries = [
  { value: 'iops', label: 'Demand (IOPS)' },
  { value: 'max_iops', label: 'Max IOPS' },
  { value: 'headroom_ratio', label: 'Headroom' },
  { value: 'utilization_ratio', label: 'Utilization' },
];

/**
 * One query. Every field is a string so that it can hold a template
 * variable; the backend parses numbers ("0.7", "70%", "4KiB").
 */
export interface StorcastQuery extends DataQuery {
  queryType?: QueryType;
  cluster?: string;
  series?: string;
  horizon?: string;
  step?: string;
  ioSize?: string;
  points?: string;
  readRatio?: string;
  extraIops?: string;
  hostsAdded?: string;
}

/** The string fields of a query that template variables may appear in. */
export const templatedFields = [
  'cluster',
  'series',
  'horizon',
  'step',
  'ioSize',
  'points',
  'readRatio',
  'extraIops',
  'hostsAdded',
] as const satisfies ReadonlyArray<keyof StorcastQuery>;

/**
 * A new query: no horizon, since a time series panel draws only within the
 * dashboard's range (its end set in the future shows the forecast); a
 * horizon would fetch points past it that the panel never draws.
 */
export const defaultQuery: Partial<StorcastQuery> = {
  queryType: 'forecast',
  series: 'iops',
};

/** jsonData of the data source. */
export interface StorcastOptions extends DataSourceJsonData {
  url?: string;
  timeoutSeconds?: number;
  /** Grafana's standard HTTP settings, read by the backend's HTTP client. */
  tlsAuthWithCACert?: boolean;
  tlsSkipVerify?: boolean;
}

/** secureJsonData of the data source; never sent back to the browser. */
export interface StorcastSecureJsonData {
  token?: string;
  /** Basic auth, as storcast's web.config_file sets it (user in options.basicAuthUser). */
  basicAuthPassword?: string;
  /** PEM CA certificate of a storcast served over HTTPS with its own CA. */
  tlsCACert?: string;
}

/** One element of the backend's "clusters" resource (storcast's /api/v1/clusters). */
export interface StorcastCluster {
  name: string;
  kind: string;
  models: Record<string, { fitted: boolean; stale: boolean; error?: string }>;
}
