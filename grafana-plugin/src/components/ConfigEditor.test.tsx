import React from 'react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import type { DataSourceSettings } from '@grafana/data';

import { ConfigEditor, withoutUserinfo } from './ConfigEditor';
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

  it('never writes a user or password typed into the URL into jsonData, and says where they belong', async () => {
    const spy = vi.fn();
    render(<Harness initial={settings()} spy={spy} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('storcast URL'), 'http://u:pw@storcast:9595');
    const urls = spy.mock.calls.map((c) => (c[0] as Settings).jsonData.url);
    expect(urls[urls.length - 1]).toBe('http://storcast:9595');
    // Not at any key either: http://u:pw@ was stripped when its @ came.
    expect(urls.filter((u) => u?.includes('@'))).toEqual([]);
    expect(screen.getByLabelText('storcast URL')).toHaveValue('http://storcast:9595');
    expect(screen.getByText(/User and password removed from the URL: set them in the basic auth fields/)).toBeInTheDocument();
  });

  it('flags a URL saved with a password, and strips it at the next edit', async () => {
    const spy = vi.fn();
    render(<Harness initial={settings({ jsonData: { url: 'http://u:pw@storcast:9595' } })} spy={spy} />);
    expect(screen.getByText(/The URL must not hold a user or password/)).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('storcast URL'), '/');
    expect(spy).toHaveBeenLastCalledWith(expect.objectContaining({ jsonData: { url: 'http://storcast:9595/' } }));
  });

  it('strips user information from partial URLs and ones without a scheme', () => {
    expect(withoutUserinfo('http://u:pw@')).toBe('http://');
    expect(withoutUserinfo('http://u@')).toBe('http://');
    expect(withoutUserinfo('https://u:p@ss@storcast:9595/x?a=b@c')).toBe('https://storcast:9595/x?a=b@c');
    expect(withoutUserinfo(' http:/u:pw@storcast')).toBe(' http:/storcast');
    expect(withoutUserinfo('u:pw@storcast:9595')).toBe('storcast:9595');
    expect(withoutUserinfo('http://storcast:9595/api@v1')).toBe('http://storcast:9595/api@v1');
    expect(withoutUserinfo('http://[::1]:9595')).toBe('http://[::1]:9595');
  });

  it('flags a timeout outside 0.1 to 600 s', async () => {
    const spy = vi.fn();
    render(<Harness initial={settings()} spy={spy} />);
    const user = userEvent.setup();
    const timeout = screen.getByLabelText('Timeout');
    await user.type(timeout, '0.05');
    expect(spy).toHaveBeenLastCalledWith(expect.objectContaining({ jsonData: { timeoutSeconds: 0.05 } }));
    expect(screen.getByText(/Timeout must be 0.1 to 600 s/)).toBeInTheDocument();
    await user.clear(timeout);
    await user.type(timeout, '30');
    expect(spy).toHaveBeenLastCalledWith(expect.objectContaining({ jsonData: { timeoutSeconds: 30 } }));
    expect(screen.queryByText(/Timeout must be/)).not.toBeInTheDocument();
    await user.clear(timeout);
    await user.type(timeout, '601');
    expect(screen.getByText(/Timeout must be 0.1 to 600 s/)).toBeInTheDocument();
    await user.clear(timeout);
    await user.type(timeout, '0');
    expect(screen.queryByText(/Timeout must be/)).not.toBeInTheDocument(); // the default
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
