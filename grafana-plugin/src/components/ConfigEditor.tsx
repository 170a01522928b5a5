import React, { ChangeEvent } from 'react';
import { DataSourcePluginOptionsEditorProps } from '@grafana/data';
import { InlineField, InlineSwitch, Input, SecretInput, SecretTextArea } from '@grafana/ui';

import { StorcastOptions, StorcastSecureJsonData } from '../types';

type Props = DataSourcePluginOptionsEditorProps<StorcastOptions, StorcastSecureJsonData>;

const labelWidth = 20;

export function ConfigEditor({ options, onOptionsChange }: Props) {
  const { jsonData, secureJsonFields } = options;
  const secureJsonData = (options.secureJsonData ?? {}) as StorcastSecureJsonData;

  const setJSON = (patch: Partial<StorcastOptions>) => onOptionsChange({ ...options, jsonData: { ...jsonData, ...patch } });

  return (
    <>
      <InlineField label="storcast URL" labelWidth={labelWidth} tooltip="Where storcast serves its HTTP API; no user or password in it (basic auth has its own fields below)" required>
        <Input
          id="storcast-url"
          aria-label="storcast URL"
          width={40}
          placeholder="http://storcast:9595"
          value={jsonData.url ?? ''}
          onChange={(e: ChangeEvent<HTMLInputElement>) => setJSON({ url: e.currentTarget.value })}
        />
      </InlineField>
      <InlineField label="Timeout (s)" labelWidth={labelWidth} tooltip="Bound on each call to storcast, 0.1 to 600 s; 10 s when empty or 0">
        <Input
          id="storcast-timeout"
          aria-label="Timeout"
          type="number"
          min={0.1}
          max={600}
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
