import React, { ChangeEvent, useEffect, useMemo, useState } from 'react';
import { QueryEditorProps, SelectableValue } from '@grafana/data';
import { getTemplateSrv } from '@grafana/runtime';
import { InlineField, InlineFieldRow, Input, RadioButtonGroup, Select } from '@grafana/ui';

import { DataSource } from '../datasource';
import { forecastSeries, QueryType, queryTypes, StorcastOptions, StorcastQuery } from '../types';

type Props = QueryEditorProps<DataSource, StorcastQuery, StorcastOptions>;

const labelWidth = 16;

/** Why a resource call failed: the backend's {"error": ...} or the message. */
export function errorText(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { data?: { error?: string; message?: string }; message?: string; statusText?: string };
    return e.data?.error ?? e.data?.message ?? e.message ?? e.statusText ?? 'unknown error';
  }
  return String(err);
}

export function QueryEditor({ query, onChange, onRunQuery, datasource }: Props) {
  const [clusters, setClusters] = useState<Array<SelectableValue<string>>>([]);
  const [clusterError, setClusterError] = useState<string>();
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    let live = true;
    datasource
      .getClusters()
      .then((cls) => {
        if (live) {
          setClusters(cls.map((c) => ({ label: c.name, value: c.name, description: c.kind })));
          setClusterError(undefined);
        }
      })
      .catch((err: unknown) => live && setClusterError(errorText(err)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [datasource]);

  const variables = useMemo(
    () => getTemplateSrv().getVariables().map((v) => ({ label: `$${v.name}`, value: `$${v.name}`, description: 'variable' })),
    []
  );
  const clusterOptions = [...clusters, ...variables];
  if (query.cluster && !clusterOptions.some((o) => o.value === query.cluster)) {
    clusterOptions.push({ label: query.cluster, value: query.cluster });
  }

  const type: QueryType = query.queryType ?? 'forecast';
  const update = (patch: Partial<StorcastQuery>) => {
    onChange({ ...query, ...patch });
    onRunQuery();
  };
  // Text fields apply on blur, so a query does not run on every key.
  const text = (key: keyof StorcastQuery, label: string, placeholder: string, tooltip: string, width = 16) => {
    // String(): an older saved query may hold a number (points: 21), which
    // is no edit when the field shows "21".
    const saved = String(query[key] ?? '');
    return (
      <InlineField label={label} labelWidth={labelWidth} tooltip={tooltip}>
        <Input
          // Keyed on the saved value: a query replaced from outside (Explore's
          // history) remounts the field with it, rather than the field showing,
          // and at its next blur writing back, the old one.
          key={saved}
          id={`storcast-${key}`}
          aria-label={label}
          width={width}
          placeholder={placeholder}
          defaultValue={saved}
          onBlur={(e: ChangeEvent<HTMLInputElement>) => {
            if (e.currentTarget.value !== saved) {
              update({ [key]: e.currentTarget.value });
            }
          }}
        />
      </InlineField>
    );
  };

  return (
    <div>
      <InlineFieldRow>
        <InlineField label="Query type" labelWidth={labelWidth}>
          <RadioButtonGroup<QueryType>
            options={queryTypes}
            value={type}
            onChange={(v) => update({ queryType: v })}
          />
        </InlineField>
      </InlineFieldRow>
      <InlineFieldRow>
        <InlineField
          label="Cluster"
          labelWidth={labelWidth}
          invalid={!!clusterError}
          error={clusterError ? `Cannot list storcast's clusters: ${clusterError}` : undefined}
          tooltip="A cluster storcast serves, or a template variable"
        >
          <Select
            inputId="storcast-cluster"
            aria-label="Cluster"
            width={30}
            isLoading={loading}
            options={clusterOptions}
            value={query.cluster ?? null}
            allowCustomValue
            placeholder="Choose a cluster"
            onChange={(v: SelectableValue<string>) => update({ cluster: v.value })}
          />
        </InlineField>
      </InlineFieldRow>
      {type === 'forecast' && (
        <InlineFieldRow>
          <InlineField label="Series" labelWidth={labelWidth}>
            <Select
              inputId="storcast-series"
              aria-label="Series"
              width={24}
              options={forecastSeries}
              value={query.series ?? 'iops'}
              allowCustomValue
              onChange={(v: SelectableValue<string>) => update({ series: v.value })}
            />
          </InlineField>
          {text('horizon', 'Horizon', 'none', 'How far past the dashboard\'s end the request goes (e.g. 7d), for alert rules and tables: a time series panel draws only within the dashboard\'s range, so set its end in the future (now+7d) to see the forecast')}
          {text('step', 'Min step', 'auto', 'Smallest step between points (e.g. 5m, or 300 for seconds); Grafana\'s interval otherwise')}
        </InlineFieldRow>
      )}
      {type === 'capacityCurve' && (
        <InlineFieldRow>
          {text('ioSize', 'IO size', "today's", 'IO size of the curve: 4096, 4KiB, 1MiB (k means 1024)')}
          {text('points', 'Points', '21', 'Number of read ratios from 0% to 100%')}
        </InlineFieldRow>
      )}
      {type === 'whatIf' && (
        <>
          <InlineFieldRow>
            {text('readRatio', 'Read ratio', "today's", 'Share of reads: 0.7 or 70%')}
            {text('ioSize', 'IO size', "today's", 'One size (64KiB) or a mix (4KiB:70%,1MiB:30%)', 24)}
          </InlineFieldRow>
          <InlineFieldRow>
            {text('extraIops', 'Extra IOPS', '0', 'IOPS added to today\'s load; a negative value takes that much from it')}
            {text('hostsAdded', 'Hosts added', '0', 'Storage hosts added to the cluster')}
          </InlineFieldRow>
        </>
      )}
    </div>
  );
}
