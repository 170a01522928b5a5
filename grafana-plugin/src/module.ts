import { DataSourcePlugin } from '@grafana/data';

import { ConfigEditor } from './components/ConfigEditor';
import { QueryEditor } from './components/QueryEditor';
import { DataSource } from './datasource';
import { StorcastOptions, StorcastQuery, StorcastSecureJsonData } from './types';

export const plugin = new DataSourcePlugin<DataSource, StorcastQuery, StorcastOptions, StorcastSecureJsonData>(DataSource)
  .setConfigEditor(ConfigEditor)
  .setQueryEditor(QueryEditor);
