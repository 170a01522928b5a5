import React from 'react';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';

import { QueryEditor } from './QueryEditor';
import type { DataSource } from '../datasource';
import type { StorcastCluster, StorcastQuery } from '../types';

vi.mock('@grafana/runtime', () => ({
  getTemplateSrv: () => ({
    getVariables: () => [{ name: 'cluster' }],
    replace: (s: string) => s,
  }),
}));

const clusters: StorcastCluster[] = [
  { name: 'ceph-a', kind: 'ceph', models: {} },
  { name: 'swift-b', kind: 'swift', models: {} },
];

function fakeDatasource(getClusters: () => Promise<StorcastCluster[]>): DataSource {
  return { getClusters } as unknown as DataSource;
}

function setup(query: Partial<StorcastQuery>, getClusters = () => Promise.resolve(clusters)) {
  const onChange = vi.fn();
  const onRunQuery = vi.fn();
  const ds = fakeDatasource(vi.fn(getClusters));
  render(
    <QueryEditor
      datasource={ds}
      query={{ refId: 'A', ...query }}
      onChange={onChange}
      onRunQuery={onRunQuery}
    />
  );
  return { onChange, onRunQuery, ds };
}

// Lets the cluster list arrive, so its state update happens inside act().
const settle = () => act(async () => {});

describe('QueryEditor', () => {
  it('fills the cluster picker from the clusters resource, with template variables', async () => {
    const { onChange, onRunQuery, ds } = setup({ queryType: 'forecast' });
    expect(ds.getClusters).toHaveBeenCalledTimes(1);
    const user = userEvent.setup();
    await user.click(screen.getByLabelText('Cluster'));
    expect(await screen.findByText('ceph-a')).toBeInTheDocument();
    expect(screen.getByText('swift-b')).toBeInTheDocument();
    expect(screen.getByText('$cluster')).toBeInTheDocument();
    await user.click(screen.getByText('swift-b'));
    expect(onChange).toHaveBeenCalledWith(expect.objectContaining({ refId: 'A', cluster: 'swift-b' }));
    expect(onRunQuery).toHaveBeenCalled();
  });

  it('says why the clusters cannot be listed', async () => {
    setup({}, () => Promise.reject({ status: 502, data: { error: 'storcast at x:1 is unreachable' } }));
    expect(await screen.findByText(/Cannot list storcast's clusters: storcast at x:1 is unreachable/)).toBeInTheDocument();
  });

  it('switches the query type and shows that type\'s fields', async () => {
    const { onChange } = setup({ queryType: 'forecast', cluster: 'ceph-a' });
    expect(screen.getByLabelText('Horizon')).toBeInTheDocument();
    expect(screen.queryByLabelText('Read ratio')).not.toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByText('What-if'));
    expect(onChange).toHaveBeenCalledWith(expect.objectContaining({ queryType: 'whatIf', cluster: 'ceph-a' }));
  });

  it('switches to the rule-set query, keeping the cluster', async () => {
    const { onChange } = setup({ queryType: 'forecast', cluster: 'ceph-a' });
    const user = userEvent.setup();
    await user.click(screen.getByText('Rule sets'));
    expect(onChange).toHaveBeenCalledWith(expect.objectContaining({ queryType: 'ruleSets', cluster: 'ceph-a' }));
  });

  it('shows the cluster field only for a rule-set query', async () => {
    setup({ queryType: 'ruleSets', cluster: 'ceph-a' });
    await settle();
    // The editor alone: the cluster select is its only field beside the query type.
    expect(screen.queryAllByRole('textbox')).toHaveLength(0);
    const selects = screen.getAllByRole('combobox');
    expect(selects).toHaveLength(1);
    expect(selects[0]).toHaveAttribute('id', 'storcast-cluster');
  });

  it('edits what-if fields as text, so they can hold template variables', async () => {
    const { onChange, onRunQuery } = setup({ queryType: 'whatIf', cluster: 'ceph-a' });
    await waitFor(() => expect(screen.getByLabelText('Read ratio')).toBeInTheDocument());
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Read ratio'), '$ratio');
    expect(onChange).not.toHaveBeenCalled(); // not on every key
    await user.tab();
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ readRatio: '$ratio' }));
    await user.type(screen.getByLabelText('Hosts added'), '3');
    await user.tab();
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ hostsAdded: '3' }));
    expect(screen.getByLabelText('Extra IOPS')).toBeInTheDocument();
    expect(screen.getByLabelText('IO size')).toBeInTheDocument();
    expect(onRunQuery).toHaveBeenCalledTimes(2);
  });

  it('shows a query replaced from outside, and does not write the old value back', async () => {
    // Explore's query history replaces the query while the editor stays mounted.
    const onChange = vi.fn();
    const onRunQuery = vi.fn();
    const ds = fakeDatasource(() => Promise.resolve(clusters));
    const editor = (horizon: string) => (
      <QueryEditor
        datasource={ds}
        query={{ refId: 'A', queryType: 'forecast', cluster: 'ceph-a', horizon }}
        onChange={onChange}
        onRunQuery={onRunQuery}
      />
    );
    const { rerender } = render(editor('7d'));
    await settle();
    expect(screen.getByLabelText('Horizon')).toHaveValue('7d');
    rerender(editor('1d'));
    expect(screen.getByLabelText('Horizon')).toHaveValue('1d');
    const user = userEvent.setup();
    await user.click(screen.getByLabelText('Horizon'));
    await user.tab();
    expect(onChange).not.toHaveBeenCalled();
    expect(onRunQuery).not.toHaveBeenCalled();
  });

  it('does not rerun a saved numeric field that was not edited', async () => {
    // An older saved query holds points as a number.
    const { onChange, onRunQuery } = setup({ queryType: 'capacityCurve', cluster: 'ceph-a', points: 21 as unknown as string });
    await settle();
    expect(screen.getByLabelText('Points')).toHaveValue('21');
    const user = userEvent.setup();
    await user.click(screen.getByLabelText('Points'));
    await user.tab();
    expect(onChange).not.toHaveBeenCalled();
    expect(onRunQuery).not.toHaveBeenCalled();
    await user.type(screen.getByLabelText('Points'), '0');
    await user.tab();
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ points: '210' }));
  });

  it('shows the capacity curve fields', async () => {
    setup({ queryType: 'capacityCurve', cluster: 'ceph-a', ioSize: '4KiB' });
    await settle();
    expect(screen.getByLabelText('IO size')).toHaveValue('4KiB');
    expect(screen.getByLabelText('Points')).toBeInTheDocument();
    expect(screen.queryByLabelText('Horizon')).not.toBeInTheDocument();
  });

  it('keeps a cluster that storcast does not list, so the query stays visible', async () => {
    setup({ queryType: 'latencyCurve', cluster: 'old-cluster' });
    await waitFor(() => expect(screen.getByText('old-cluster')).toBeInTheDocument());
  });
});
