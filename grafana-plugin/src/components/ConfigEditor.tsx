import React, { ChangeEvent, useState } from 'react';
import { DataSourcePluginOptionsEditorProps } from '@grafana/data';
import { InlineField, InlineSwitch, Input, SecretInput, SecretTextArea } from '@grafana/ui';

import { StorcastOptions, StorcastSecureJsonData } from '../types';

type Props = DataSourcePluginOptionsEditorProps<StorcastOptions, StorcastSecureJsonData>;

const labelWidth = 20;

// The backend's bounds (pkg/models MinTimeoutSeconds, MaxTimeoutSeconds).
const minTimeout = 0.1;
const maxTimeout = 600;

/**
 * The URL without its user information: the authority's text up to its last
 * @, the @ included, as Go's url.Parse reads it. It applies to partial URLs
 * (http://u:pw@) and ones without a scheme (u:pw@host), which the backend
 * refuses quoting them whole. The URL is in jsonData, which every user's
 * browser reads unencrypted: a password in it must never be stored.
 */
export function withoutUserinfo(url: string): string {
  // A scheme only when slashes follow, so that "u:pw@host" is no scheme "u".
  const m = /^(\s*(?:[A-Za-z][A-Za-z0-9+.-]*:(?=\/))?\/*)([^/?#]*)/.exec(url);
  if (!m || !m[2].includes('@')) {
    return url;
  }
  const [, prefix, authority] = m;
  return prefix + authority.slice(authority.lastIndexOf('@') + 1) + url.slice(prefix.length + authority.length);
}

function timeoutError(t: number | undefined): string | undefined {
  if (t === undefined || t === 0 || (t >= minTimeout && t <= maxTimeout)) {
    return undefined;
  }
  return `Timeout must be ${minTimeout} to ${maxTimeout} s (empty or 0: the default, 10 s)`;
}

export function ConfigEditor({ options, onOptionsChange }: Props) {
  const { jsonData, secureJsonFields } = options;
  const secureJsonData = (options.secureJsonData ?? {}) as StorcastSecureJsonData;
  // The stripped URL no longer shows why it changed: say so until the field
  // is emptied.
  const [userinfoRemoved, setUserinfoRemoved] = useState(false);

  const setJSON = (patch: Partial<StorcastOptions>) => onOptionsChange({ ...options, jsonData: { ...jsonData, ...patch } });

  const url = jsonData.url ?? '';
  // A URL saved with user information before the editor stripped it.
  const urlError =
    withoutUserinfo(url) !== url
      ? 'The URL must not hold a user or password: set them in the basic auth fields below'
      : userinfoRemoved
        ? 'User and password removed from the URL: set them in the basic auth fields below'
        : undefined;
  const timeoutMessage = timeoutError(jsonData.timeoutSeconds);

  return (
    <>
      <InlineField
        label="storcast URL"
        labelWidth={labelWidth}
        tooltip="Where storcast serves its HTTP API; no user or password in it (basic auth has its own fields below)"
        required
        invalid={!!urlError}
        error={urlError}
      >
        <Input
          id="storcast-url"
          aria-label="storcast URL"
          width={40}
          placeholder="http://storcast:9595"
          value={url}
          onChange={(e: ChangeEvent<HTMLInputElement>) => {
            const typed = e.currentTarget.value;
            const stripped = withoutUserinfo(typed);
            if (stripped !== typed) {
              setUserinfoRemoved(true);
            } else if (typed === '') {
              setUserinfoRemoved(false);
            }
            setJSON({ url: stripped });
          }}
        />
      </InlineField>
      <InlineField
        label="Timeout (s)"
        labelWidth={labelWidth}
        tooltip="Bound on each call to storcast, 0.1 to 600 s; 10 s when empty or 0"
        invalid={!!timeoutMessage}
        error={timeoutMessage}
      >
        <Input
          id="storcast-timeout"
          aria-label="Timeout"
          type="number"
          min={minTimeout}
          max={maxTimeout}
          width={10}
          placeholder="10"
          value={jsonData.timeoutSeconds ?? ''}
          onChange={(e: ChangeEvent<HTMLInputElement>) => {
            const v = e.currentTarget.value;
            setJSON({ timeoutSeconds: v === '' ? undefined : Number(v) });
          }}
        />
      </InlineField>
      <InlineField
        label="Token"
        labelWidth={labelWidth}
        tooltip="Sent as a bearer token, for a storcast behind an authenticating proxy"
      >
        <SecretInput
          id="storcast-token"
          aria-label="Token"
          width={40}
          placeholder="optional"
          isConfigured={!!secureJsonFields?.token}
          value={secureJsonData.token ?? ''}
          onChange={(e: ChangeEvent<HTMLInputElement>) =>
            onOptionsChange({ ...options, secureJsonData: { ...secureJsonData, token: e.currentTarget.value } })
          }
          onReset={() =>
            onOptionsChange({
              ...options,
              secureJsonFields: { ...secureJsonFields, token: false },
              secureJsonData: { ...secureJsonData, token: '' },
            })
          }
        />
      </InlineField>
      <InlineField
        label="Basic auth user"
        labelWidth={labelWidth}
        tooltip="For a storcast whose web.config_file sets basic_auth_users; empty: no basic auth"
      >
        <Input
          id="storcast-basic-auth-user"
          aria-label="Basic auth user"
          width={40}
          placeholder="optional"
          value={options.basicAuthUser ?? ''}
          onChange={(e: ChangeEvent<HTMLInputElement>) => {
            const user = e.currentTarget.value;
            onOptionsChange({ ...options, basicAuth: user !== '', basicAuthUser: user });
          }}
        />
      </InlineField>
      <InlineField label="Basic auth password" labelWidth={labelWidth}>
        <SecretInput
          id="storcast-basic-auth-password"
          aria-label="Basic auth password"
          width={40}
          isConfigured={!!secureJsonFields?.basicAuthPassword}
          value={secureJsonData.basicAuthPassword ?? ''}
          onChange={(e: ChangeEvent<HTMLInputElement>) =>
            onOptionsChange({ ...options, secureJsonData: { ...secureJsonData, basicAuthPassword: e.currentTarget.value } })
          }
          onReset={() =>
            onOptionsChange({
              ...options,
              secureJsonFields: { ...secureJsonFields, basicAuthPassword: false },
              secureJsonData: { ...secureJsonData, basicAuthPassword: '' },
            })
          }
        />
      </InlineField>
      <InlineField
        label="CA certificate"
        labelWidth={labelWidth}
        tooltip="PEM certificate of the CA that signed storcast's TLS certificate (its web.config_file's tls_server_config)"
      >
        <SecretTextArea
          id="storcast-tls-ca-cert"
          aria-label="CA certificate"
          cols={45}
          rows={4}
          placeholder="-----BEGIN CERTIFICATE-----"
          isConfigured={!!secureJsonFields?.tlsCACert}
          value={secureJsonData.tlsCACert ?? ''}
          onChange={(e: ChangeEvent<HTMLTextAreaElement>) => {
            const pem = e.currentTarget.value;
            onOptionsChange({
              ...options,
              jsonData: { ...jsonData, tlsAuthWithCACert: pem !== '' },
              secureJsonData: { ...secureJsonData, tlsCACert: pem },
            });
          }}
          onReset={() =>
            onOptionsChange({
              ...options,
              jsonData: { ...jsonData, tlsAuthWithCACert: false },
              secureJsonFields: { ...secureJsonFields, tlsCACert: false },
              secureJsonData: { ...secureJsonData, tlsCACert: '' },
            })
          }
        />
      </InlineField>
      <InlineField
        label="Skip TLS verify"
        labelWidth={labelWidth}
        tooltip="Accept any certificate storcast presents (tests only: the connection is then open to interception)"
      >
        <InlineSwitch
          id="storcast-tls-skip-verify"
          aria-label="Skip TLS verify"
          value={jsonData.tlsSkipVerify ?? false}
          onChange={(e: React.FormEvent<HTMLInputElement>) => setJSON({ tlsSkipVerify: e.currentTarget.checked })}
        />
      </InlineField>
    </>
  );
}
