import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { CoreApp, type DataSourceInstanceSettings, type ScopedVars } from '@grafana/data';
import type { DataQuery } from '@grafana/schema';

import { DataSource } from './datasource';
import { StorcastOptions, StorcastQuery, templatedFields } from './types';

// Grafana's own DataSourceWithBackend, so that what the data source inherits
// from it (interpolateVariablesInQueries) is tested too; only the template
// service is a stand-in: $name and ${name} from the scoped vars, a value
// given to the format function when there is one; else, as Grafana's
// default (glob) format, several values as {a,b}.
vi.mock('@grafana/runtime', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@grafana/runtime')>()),
  getTemplateSrv: () => ({
    replace: (s: string, scoped: Record<string, { value: string | string[] }> = {}, format?: unknown) =>
      s.replace(/\$\{?(\w+)\}?/g, (m: string, name: string) => {
        const v = scoped[name]?.value;
        if (v === undefined) {
          return m;
        }
        if (typeof format === 'function') {
          return format(v) as string;
        }
        return Array.isArray(v) ? (v.length > 1 ? `{${v.join(',')}}` : v.join('')) : v;
      }),
  }),
}));

const ds = new DataSource({ type: 'storcast-forecast-datasource', uid: 'u', name: 'storcast', jsonData: {}, meta: {} } as unknown as DataSourceInstanceSettings<StorcastOptions>);

/**
 * Every string field of a query beyond DataQuery's, written out here rather
 * than taken from templatedFields, so that a field left out of that list is
 * caught. tsc checks it against StorcastQuery (below), the test against the
 * Go Query's JSON tags.
 */
const stringFields = ['cluster', 'series', 'horizon', 'step', 'ioSize', 'points', 'readRatio', 'extraIops', 'hostsAdded'] as const;

type OwnKeys = Exclude<keyof StorcastQuery, keyof DataQuery>;
type OwnStringKeys = { [K in OwnKeys]-?: NonNullable<StorcastQuery[K]> extends string ? K : never }[OwnKeys];
expectTypeOf<OwnStringKeys>().toEqualTypeOf<(typeof stringFields)[number]>();

/** The JSON tags of pkg/models' Query but queryType, which DataQuery carries. */
function goQueryFields(): string[] {
  const src = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../pkg/models/query.go'), 'utf8');
  const body = /\ntype Query struct \{\n([\s\S]*?)\n\}/.exec(src)?.[1] ?? '';
  return [...body.matchAll(/json:"(\w+)"/g)].map((m) => m[1]).filter((f) => f !== 'queryType');
}

describe('DataSource', () => {
  it('starts a new query without a horizon', () => {
    // A time series panel draws only within the dashboard's range: a
    // default horizon fetched points it never draws, at a coarser step.
    const q = ds.getDefaultQuery(CoreApp.Dashboard);
    expect(q.queryType).toBe('forecast');
    expect(q.horizon).toBeUndefined();
  });

  it('has every field of the Go query as a string field', () => {
    expect(goQueryFields().sort()).toEqual([...stringFields].sort());
  });

  it('replaces template variables in every field', () => {
    const scoped: Record<string, { text: string; value: string }> = {};
    const query: StorcastQuery = { refId: 'A', queryType: 'whatIf' };
    for (const f of stringFields) {
      scoped[`v_${f}`] = { text: f, value: `value-of-${f}` };
      query[f] = `$v_${f}`;
    }
    const out = ds.applyTemplateVariables(query, scoped);
    for (const f of stringFields) {
      expect(out[f]).toBe(`value-of-${f}`);
    }
    expect([...templatedFields].sort()).toEqual([...stringFields].sort());
    expect(out.refId).toBe('A');
    expect(out.queryType).toBe('whatIf');
    expect(query.cluster).toBe('$v_cluster'); // the dashboard's query is left alone
  });

  it('replaces template variables for server-side expressions and Explore (interpolateVariablesInQueries)', () => {
    // Grafana calls only interpolateVariablesInQueries there, not
    // applyTemplateVariables: a Math expression over this panel's queries
    // sent "$cluster" to the backend if it were not the same replacement.
    const queries: StorcastQuery[] = [
      { refId: 'A', queryType: 'forecast', cluster: '$cluster', horizon: '${h}' },
      { refId: 'B', queryType: 'whatIf', cluster: '${cluster}', extraIops: '-$extra' },
    ];
    const scoped = { cluster: { text: 'ceph-a', value: 'ceph-a' }, h: { text: '7d', value: '7d' }, extra: { text: '500', value: '500' } };
    expect(ds.interpolateVariablesInQueries(queries, scoped, [])).toEqual([
      { refId: 'A', queryType: 'forecast', cluster: 'ceph-a', horizon: '7d' },
      { refId: 'B', queryType: 'whatIf', cluster: 'ceph-a', extraIops: '-500' },
    ]);
    expect(queries[0].cluster).toBe('$cluster');
  });

  it('replaces ${var} inside text and leaves empty fields empty', () => {
    const out = ds.applyTemplateVariables({ refId: 'A', ioSize: '${size}KiB', readRatio: '' }, { size: { text: '', value: '64' } });
    expect(out.ioSize).toBe('64KiB');
    expect(out.readRatio).toBe('');
  });

  it('fails a query whose cluster variable holds several values', () => {
    // Grafana's default format sent them as one cluster named "{a,b}".
    const multi = { cluster: { text: 'a + b', value: ['a', 'b'] } } as unknown as ScopedVars;
    const query: StorcastQuery = { refId: 'A', queryType: 'forecast', cluster: '$cluster' };
    expect(() => ds.applyTemplateVariables(query, multi)).toThrow(
      'cluster: $cluster holds several values; repeat the panel by it'
    );
    expect(() => ds.interpolateVariablesInQueries([query], multi, [])).toThrow(/holds several values/);
    // Other fields keep Grafana's default format.
    expect(ds.applyTemplateVariables({ refId: 'A', cluster: 'c', ioSize: '$cluster' }, multi).ioSize).toBe('{a,b}');
  });

  it('takes a cluster variable holding one value, as a list or not', () => {
    const query: StorcastQuery = { refId: 'A', queryType: 'forecast', cluster: '$cluster' };
    const one = { cluster: { text: 'a', value: ['a'] } } as unknown as ScopedVars;
    expect(ds.applyTemplateVariables(query, one).cluster).toBe('a');
    expect(ds.applyTemplateVariables(query, { cluster: { text: 'a', value: 'a' } }).cluster).toBe('a');
  });

  it('does not send a query without a cluster, or a hidden one', () => {
    expect(ds.filterQuery({ refId: 'A' })).toBe(false);
    expect(ds.filterQuery({ refId: 'A', cluster: 'c', hide: true })).toBe(false);
    expect(ds.filterQuery({ refId: 'A', cluster: 'c' })).toBe(true);
  });

  it('lists clusters as template variable values', async () => {
    const getResource = vi.spyOn(ds, 'getResource').mockResolvedValue([
      { name: 'ceph-a', kind: 'ceph', models: {} },
      { name: 'swift-b', kind: 'swift', models: {} },
    ]);
    expect(await ds.metricFindQuery('clusters')).toEqual([
      { text: 'ceph-a', value: 'ceph-a' },
      { text: 'swift-b', value: 'swift-b' },
    ]);
    expect(getResource).toHaveBeenCalledWith('clusters');
  });
});
