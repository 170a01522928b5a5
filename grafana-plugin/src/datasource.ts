import { CoreApp, DataQueryRequest, DataSourceInstanceSettings, MetricFindValue, ScopedVars } from '@grafana/data';
import { DataSourceWithBackend, getTemplateSrv } from '@grafana/runtime';

import { defaultQuery, StorcastCluster, StorcastOptions, StorcastQuery, templatedFields } from './types';

export class DataSource extends DataSourceWithBackend<StorcastQuery, StorcastOptions> {
  constructor(instanceSettings: DataSourceInstanceSettings<StorcastOptions>) {
    super(instanceSettings);
  }

  getDefaultQuery(_: CoreApp): Partial<StorcastQuery> {
    return defaultQuery;
  }

  /**
   * Replaces template variables in every field of the query. Grafana's
   * DataSourceWithBackend.interpolateVariablesInQueries, which server-side
   * expressions and Explore call instead, maps through this method: no
   * override of it is needed (datasource.test.ts checks both).
   */
  applyTemplateVariables(query: StorcastQuery, scopedVars: ScopedVars): StorcastQuery {
    const srv = getTemplateSrv();
    const out: StorcastQuery = { ...query };
    for (const key of templatedFields) {
      const v = query[key];
      if (typeof v === 'string' && v !== '') {
        out[key] = key === 'cluster' ? srv.replace(v, scopedVars, oneCluster(v)) : srv.replace(v, scopedVars);
      }
    }
    return out;
  }

  /** A query without a cluster cannot run; don't send it. */
  filterQuery(query: StorcastQuery): boolean {
    return !query.hide && !!query.cluster;
  }

  /** storcast's clusters, through the backend's "clusters" resource. */
  async getClusters(): Promise<StorcastCluster[]> {
    return this.getResource<StorcastCluster[]>('clusters');
  }

  /** Template variable query: any text lists the clusters storcast serves. */
  async metricFindQuery(_query: unknown, _options?: Partial<DataQueryRequest<StorcastQuery>>): Promise<MetricFindValue[]> {
    const clusters = await this.getClusters();
    return clusters.map((c) => ({ text: c.name, value: c.name }));
  }
}

/**
 * A template format for the cluster: Grafana's default would join several
 * values of a multi-value variable as "{ceph-a,swift-b}", sent as one cluster
 * name that storcast does not know. A query asks about one cluster, so
 * several values fail the query, thrown as DataSourceWithBackend.query itself
 * throws for an unknown data source: Grafana shows it as the panel's error.
 */
function oneCluster(field: string) {
  return (value: unknown): string => {
    if (Array.isArray(value)) {
      if (value.length > 1) {
        throw new Error(`cluster: ${field} holds several values; repeat the panel by it`);
      }
      return String(value[0] ?? '');
    }
    return String(value ?? '');
  };
}
