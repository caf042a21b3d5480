/** The usage text of the connectors commands (kept apart so printing usage loads nothing else). */
export const CONNECTORS_USAGE = `Connectors (scheduled HTTPS pulls of a csv/xlsx/xls/JSON/NDJSON file; each pull makes one job, source connector)
  connectors add --org ID --url https://… --every SECONDS [--auth-header-file PATH] [--monitor MONITOR_ID]
              [--locale da|en] [--mapping JSON] [--options JSON]
              (--auth-header-file holds one line "Name: value", e.g. "Authorization: Bearer …"; stored encrypted)
  connectors list [--org ID]     (with the last run, last success, last job and last error)
  connectors remove CONNECTOR_ID`;
