/**
 * The panel kinds of scripts/grafana-dashboard.ts on the Grafana Foundation SDK's builders: each panel and query
 * reads the Prometheus data source the dashboard's `datasource` variable picks, the series of the job and instances
 * its `job` and `instance` variables select.
 */
import {
  MappingType,
  RowBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  type DataSourceRef,
  type ValueMapping,
} from "@grafana/grafana-foundation-sdk/dashboard";
import {
  BigValueColorMode,
  BigValueGraphMode,
  BigValueTextMode,
  LegendDisplayMode,
  LegendPlacement,
  ReduceDataOptionsBuilder,
  VizLegendOptionsBuilder,
} from "@grafana/grafana-foundation-sdk/common";
import { DataqueryBuilder, PromQueryFormat } from "@grafana/grafana-foundation-sdk/prometheus";
import { PanelBuilder as StatPanelBuilder } from "@grafana/grafana-foundation-sdk/stat";
import { PanelBuilder as TablePanelBuilder } from "@grafana/grafana-foundation-sdk/table";
import { PanelBuilder as TimeseriesPanelBuilder } from "@grafana/grafana-foundation-sdk/timeseries";

/** Every panel and query reads the data source the `datasource` variable picks. */
export const DATASOURCE: DataSourceRef = { type: "prometheus", uid: "${datasource}" };
/** The series of the selected job and instances; every query but ALERTS' filters on it. */
export const SEL = 'job="$job", instance=~"$instance"';
/** The window of every rate: Grafana's, at least four scrape intervals. */
export const RATE = "$__rate_interval";

/** One query of a panel: PromQL and the legend of its series. */
export interface Query {
  readonly expr: string;
  readonly legend?: string;
}

/** How a panel asks Prometheus: over the time range (a graph) or at its end (a stat's or a table's current value). */
type Mode = "range" | "instant" | "table";

function target({ expr, legend }: Query, index: number, mode: Mode): DataqueryBuilder {
  const query = new DataqueryBuilder()
    .datasource(DATASOURCE)
    .refId(String.fromCharCode(65 + index))
    .expr(expr)
    .legendFormat(legend ?? "__auto");
  if (mode === "range") return query.range();
  return mode === "table" ? query.instant().format(PromQueryFormat.Table) : query.instant();
}

/** Value → text (and colour) for gauges that hold a state as 0 and 1. */
export function states(map: Readonly<Record<string, { readonly text: string; readonly color: string }>>): ValueMapping[] {
  return [{ type: MappingType.ValueToText, options: Object.fromEntries(Object.entries(map).map(([value, r], index) => [value, { ...r, index }])) }];
}

/** Green below `red`, red from it on. */
export const redFrom = (red: number): ThresholdsConfigBuilder =>
  new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps([
    { value: null, color: "green" },
    { value: red, color: "red" },
  ]);

interface PanelOptions {
  readonly description: string;
  readonly width: number;
  readonly height?: number;
  readonly unit?: string;
  readonly queries: readonly Query[];
}

/** Panel and row ids in the order they are added: stable from one generation to the next. */
export class Ids {
  #next = 1;
  take(): number {
    return this.#next++;
  }
}

export const row = (ids: Ids, title: string): RowBuilder => new RowBuilder(title).id(ids.take());

/** What every panel builder of the SDK has, each returning its own type. */
interface CommonPanel<B> {
  id(id: number): B;
  title(title: string): B;
  description(description: string): B;
  datasource(ref: DataSourceRef): B;
  span(width: number): B;
  height(height: number): B;
  unit(unit: string): B;
}

/** The settings every panel shares: its id, title, description, data source, size and unit. */
function common<B extends CommonPanel<B>>(builder: B, ids: Ids, title: string, o: PanelOptions, height: number): B {
  return builder
    .id(ids.take())
    .title(title)
    .description(o.description)
    .datasource(DATASOURCE)
    .span(o.width)
    .height(o.height ?? height)
    .unit(o.unit ?? "short");
}

export function timeseries(ids: Ids, title: string, o: PanelOptions): TimeseriesPanelBuilder {
  return common(new TimeseriesPanelBuilder(), ids, title, o, 8)
    .lineWidth(1)
    .fillOpacity(10)
    .legend(new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom))
    .targets(o.queries.map((q, i) => target(q, i, "range")));
}

export function stat(ids: Ids, title: string, o: PanelOptions & { readonly text?: BigValueTextMode }): StatPanelBuilder {
  return common(new StatPanelBuilder(), ids, title, o, 5)
    .graphMode(BigValueGraphMode.None)
    .colorMode(BigValueColorMode.Value)
    .textMode(o.text ?? BigValueTextMode.Auto)
    .reduceOptions(new ReduceDataOptionsBuilder().values(false).calcs(["lastNotNull"]))
    .targets(o.queries.map((q, i) => target(q, i, "instant")));
}

/** A table of the series' labels (and value) now; the columns Prometheus adds that say nothing are hidden. */
export function table(ids: Ids, title: string, o: PanelOptions & { readonly hide?: readonly string[] }): TablePanelBuilder {
  const hidden = ["Time", "__name__", "job", ...(o.hide ?? [])];
  return common(new TablePanelBuilder(), ids, title, o, 8)
    .withTransformation({ id: "organize", options: { excludeByName: Object.fromEntries(hidden.map((name) => [name, true])) } })
    .targets(o.queries.map((q, i) => target(q, i, "table")));
}

/** The median, 95th and 99th percentiles of a histogram over every series selected. */
export const quantiles = (buckets: string): Query[] =>
  [0.5, 0.95, 0.99].map((q) => ({ expr: `histogram_quantile(${q}, sum by (le) (rate(${buckets}{${SEL}}[${RATE}])))`, legend: `p${q * 100}` }));
