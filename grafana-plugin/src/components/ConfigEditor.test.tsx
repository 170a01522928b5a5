import React from 'react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import type { DataSourceSettings } from '@grafana/data';

import { ConfigEditor } from './ConfigEditor';
import type { StorcastOptions, StorcastSecureJsonData } from '../types';

type Settings = DataSourceSettings<StorcastOptions, StorcastSecureJsonData>;

function settings(patch: Partial<Settings> = {}): Settings {
  return {
    id: 1,
    uid: 'storcast',
    orgId: 1,
    name: 'Storcast',
    type: 'storcast-forecast-datasource',
    typeName: 'Storcast',
    typeLogoUrl: '',
    access: 'proxy',
    url: '',
    user: '',
    database: '',
    basicAuth: false,
    basicAuthUser: '',
    isDefault: false,
    jsonData: {},
    secureJsonFields: {},
    readOnly: false,
    withCredentials: false,
    ...patch,
  } as Settings;
}

// A controlled parent, as Grafana's settings page is.
function Harness({ initial, spy }: { initial: Settings; spy: (s: Settings) => void }) {
  const [opts, setOpts] = React.useState(initial);
  return (
    <ConfigEditor
      options={opts}
      onOptionsChange={(o) => {
        spy(o);
        setOpts(o);
      }}
    />
  );
}

describe('ConfigEditor', () => {
  it('writes the URL and the timeout into jsonData', async () => {
    const spy = vi.fn();
    render(<Harness initial={settings({ jsonData: { timeoutSeconds: 5 } })} spy={spy} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('storcast URL'), 'http://storcast:9595');
    expect(spy).toHaveBeenLastCalledWith(
      expect.objectContaining({ jsonData: { url: 'http://storcast:9595', timeoutSeconds: 5 } })
    );
    await user.clear(screen.getByLabelText('Timeout'));
    await user.type(screen.getByLabelText('Timeout'), '30');
    expect(spy).toHaveBeenLastCalledWith(
      expect.objectContaining({ jsonData: { url: 'http://storcast:9595', timeoutSeconds: 30 } })
    );
  });

  it('keeps the token in secureJsonData, never in jsonData', async () => {
    const spy = vi.fn();
    render(<Harness initial={settings()} spy={spy} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Token'), 's3cret');
    const last = spy.mock.calls[spy.mock.calls.length - 1][0] as Settings;
    expect(last.secureJsonData).toEqual({ token: 's3cret' });
    expect(JSON.stringify(last.jsonData)).not.toContain('s3cret');
  });

  it('shows a configured token as set and resets it', async () => {
    const spy = vi.fn();
    render(<Harness initial={settings({ secureJsonFields: { token: true } })} spy={spy} />);
    expect(screen.getByDisplayValue('configured')).toBeDisabled();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Reset' }));
    expect(spy).toHaveBeenLastCalledWith(
      expect.objectContaining({ secureJsonFields: { token: false }, secureJsonData: { token: '' } })
    );
  });
});
