import { vi } from 'vitest';
import { CoreApp, type DataSourceInstanceSettings } from '@grafana/data';

import { DataSource } from './datasource';
import { StorcastOptions, StorcastQuery, templatedFields } from './types';

const getResource = vi.fn();

vi.mock('@grafana/runtime', () => ({
  DataSourceWithBackend: class {
    getResource = getResource;
  },
  getTemplateSrv: () => ({
    // A stand-in of Grafana's template service: $name and ${name} from the scoped vars.
    replace: (s: string, scoped: Record<string, { value: string }> = {}) =>
      s.replace(/\$\{?(\w+)\}?/g, (m: string, name: string) => scoped[name]?.value ?? m),
  }),
}));

const ds = new DataSource({} as DataSourceInstanceSettings<StorcastOptions>);

describe('DataSource', () => {
  it('starts a new query without a horizon', () => {
    // A time series panel draws only within the dashboard's range: a
    // default horizon fetched points it never draws, at a coarser step.
    const q = ds.getDefaultQuery(CoreApp.Dashboard);
    expect(q.queryType).toBe('forecast');
    expect(q.horizon).toBeUndefined();
  });

  it('replaces template variables in every field', () => {
    const scoped: Record<string, { text: string; value: string }> = {};
    const query: StorcastQuery = { refId: 'A', queryType: 'whatIf' };
    for (const f of templatedFields) {
      scoped[f] = { text: f, value: `value-of-${f}` };
      (query as unknown as Record<string, string>)[f] = `$${f}`;
    }
    const out = ds.applyTemplateVariables(query, scoped);
    for (const f of templatedFields) {
      expect(out[f]).toBe(`value-of-${f}`);
    }
    expect(out.refId).toBe('A');
    expect(out.queryType).toBe('whatIf');
    expect(query.cluster).toBe('$cluster'); // the dashboard's query is left alone
  });

  it('replaces ${var} inside text and leaves empty fields empty', () => {
    const out = ds.applyTemplateVariables({ refId: 'A', ioSize: '${size}KiB', readRatio: '' }, { size: { text: '', value: '64' } });
    expect(out.ioSize).toBe('64KiB');
    expect(out.readRatio).toBe('');
  });

  it('does not send a query without a cluster, or a hidden one', () => {
    expect(ds.filterQuery({ refId: 'A' })).toBe(false);
    expect(ds.filterQuery({ refId: 'A', cluster: 'c', hide: true })).toBe(false);
    expect(ds.filterQuery({ refId: 'A', cluster: 'c' })).toBe(true);
  });

  it('lists clusters as template variable values', async () => {
    getResource.mockResolvedValue([
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
