// Loads the built dist/module.js the way Grafana does (an AMD define() whose
// dependencies are Grafana's own copies of React and @grafana/*), and renders
// the editors it exports. Run after the build: npm run test:bundle.
import React from 'react';
import { readFileSync } from 'node:fs';
import { act, render, screen } from '@testing-library/react';
import * as grafanaData from '@grafana/data';
import * as grafanaUI from '@grafana/ui';
import { vi } from 'vitest';

const runtime = {
  DataSourceWithBackend: class {},
  getTemplateSrv: () => ({ getVariables: () => [], replace: (s: string) => s }),
};

type Factory = (...deps: unknown[]) => unknown;

function loadAMD(path: string): Record<string, unknown> {
  const provided: Record<string, unknown> = {
    react: React,
    '@grafana/data': grafanaData,
    '@grafana/ui': grafanaUI,
    '@grafana/runtime': runtime,
  };
  let exported: Record<string, unknown> = {};
  const define = (deps: string[], factory: Factory) => {
    const args = deps.map((d) => {
      if (d === 'exports') {
        return exported;
      }
      if (d === 'require') {
        return () => {
          throw new Error('module.js called require()');
        };
      }
      if (!(d in provided)) {
        throw new Error(`module.js needs ${d}, which Grafana does not provide to plugins`);
      }
      return provided[d];
    });
    const ret = factory(...args);
    if (ret && typeof ret === 'object') {
      exported = ret as Record<string, unknown>;
    }
  };
  (define as unknown as { amd: object }).amd = {};
  new Function('define', readFileSync(path, 'utf8'))(define);
  return exported;
}

describe('dist/module.js', () => {
  it('defines the data source plugin for an AMD loader, with both editors', async () => {
    const mod = loadAMD('dist/module.js');
    const plugin = mod.plugin as InstanceType<typeof grafanaData.DataSourcePlugin>;
    expect(plugin).toBeInstanceOf(grafanaData.DataSourcePlugin);
    const QueryEditor = plugin.components.QueryEditor as unknown as React.ComponentType<Record<string, unknown>>;
    const ConfigEditor = plugin.components.ConfigEditor as unknown as React.ComponentType<Record<string, unknown>>;
    expect(QueryEditor).toBeDefined();
    expect(ConfigEditor).toBeDefined();

    const getClusters = vi.fn().mockResolvedValue([{ name: 'demo', kind: 'ceph', models: {} }]);
    render(
      <QueryEditor
        datasource={{ getClusters }}
        query={{ refId: 'A', queryType: 'whatIf', cluster: 'demo' }}
        onChange={vi.fn()}
        onRunQuery={vi.fn()}
      />
    );
    await act(async () => {}); // the cluster list arrives
    expect(screen.getByLabelText('Hosts added')).toBeInTheDocument();
    expect(getClusters).toHaveBeenCalled();

    render(<ConfigEditor options={{ jsonData: { url: 'http://storcast:9595' }, secureJsonFields: {} }} onOptionsChange={vi.fn()} />);
    expect(screen.getByLabelText('storcast URL')).toHaveValue('http://storcast:9595');
  });
});
