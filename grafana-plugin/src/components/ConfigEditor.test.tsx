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

  it('writes basic auth as Grafana\'s standard settings, the password in secureJsonData', async () => {
    const spy = vi.fn();
    render(<Harness initial={settings()} spy={spy} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Basic auth user'), 'grafana');
    await user.type(screen.getByLabelText('Basic auth password'), 'pw');
    const last = spy.mock.calls[spy.mock.calls.length - 1][0] as Settings;
    expect(last.basicAuth).toBe(true);
    expect(last.basicAuthUser).toBe('grafana');
    expect(last.secureJsonData).toEqual({ basicAuthPassword: 'pw' });
    expect(JSON.stringify(last.jsonData)).not.toContain('pw');
  });

  it('keeps the CA certificate in secureJsonData and turns on its use', async () => {
    const spy = vi.fn();
    render(<Harness initial={settings()} spy={spy} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('CA certificate'), 'PEM');
    const last = spy.mock.calls[spy.mock.calls.length - 1][0] as Settings;
    expect(last.secureJsonData).toEqual({ tlsCACert: 'PEM' });
    expect(last.jsonData).toEqual({ tlsAuthWithCACert: true });
    await user.click(screen.getByLabelText('Skip TLS verify'));
    expect(spy).toHaveBeenLastCalledWith(expect.objectContaining({ jsonData: { tlsAuthWithCACert: true, tlsSkipVerify: true } }));
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
