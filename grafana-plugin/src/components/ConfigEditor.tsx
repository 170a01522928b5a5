import React, { ChangeEvent } from 'react';
import { DataSourcePluginOptionsEditorProps } from '@grafana/data';
import { InlineField, Input, SecretInput } from '@grafana/ui';

import { StorcastOptions, StorcastSecureJsonData } from '../types';

type Props = DataSourcePluginOptionsEditorProps<StorcastOptions, StorcastSecureJsonData>;

const labelWidth = 20;

export function ConfigEditor({ options, onOptionsChange }: Props) {
  const { jsonData, secureJsonFields } = options;
  const secureJsonData = (options.secureJsonData ?? {}) as StorcastSecureJsonData;

  const setJSON = (patch: Partial<StorcastOptions>) => onOptionsChange({ ...options, jsonData: { ...jsonData, ...patch } });

  return (
    <>
      <InlineField label="storcast URL" labelWidth={labelWidth} tooltip="Where storcast serves its HTTP API" required>
        <Input
          id="storcast-url"
          aria-label="storcast URL"
          width={40}
          placeholder="http://storcast:9595"
          value={jsonData.url ?? ''}
          onChange={(e: ChangeEvent<HTMLInputElement>) => setJSON({ url: e.currentTarget.value })}
        />
      </InlineField>
      <InlineField label="Timeout (s)" labelWidth={labelWidth} tooltip="Bound on each call to storcast; 10 s when empty">
        <Input
          id="storcast-timeout"
          aria-label="Timeout"
          type="number"
          min={0}
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
    </>
  );
}
