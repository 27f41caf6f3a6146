/**
 * The ECharts options of the overview's charts, from the engine's answers and a palette: a pie of
 * shares, the traffic trend (lines over time) and bars of named counts. Pure.
 */
import type { ComposeOption } from 'echarts/core';
import type { BarSeriesOption, LineSeriesOption, PieSeriesOption } from 'echarts/charts';
import type { GridComponentOption, LegendComponentOption, TooltipComponentOption } from 'echarts/components';
import type { ChartPalette } from './chart-theme.ts';
import { formatTime } from '$lib/format.ts';

/** The options of the chart kinds and components OverviewChart registers. */
export type ChartOption = ComposeOption<
  | PieSeriesOption
  | LineSeriesOption
  | BarSeriesOption
  | GridComponentOption
  | LegendComponentOption
  | TooltipComponentOption
>;

/** A clicked slice, point or bar. */
export interface Pick {
  seriesIndex: number;
  dataIndex: number;
}

export interface Slice {
  name: string;
  value: number;
}

const axisText = (palette: ChartPalette) => ({ color: palette.subtle });

/** A ring of shares with a legend beside it; each slice says its count and percent on hover. */
export function pieOption(slices: readonly Slice[], palette: ChartPalette, seriesName: string): ChartOption {
  return {
    tooltip: { trigger: 'item', formatter: '{b}<br/>{c} ({d}%)' },
    legend: {
      type: 'scroll',
      orient: 'vertical',
      right: 8,
      top: 'middle',
      textStyle: { color: palette.text },
      pageTextStyle: { color: palette.subtle },
      pageIconColor: palette.text,
      pageIconInactiveColor: palette.grid,
    },
    series: [
      {
        type: 'pie',
        name: seriesName,
        center: ['30%', '50%'],
        radius: ['40%', '70%'],
        avoidLabelOverlap: true,
        label: { show: false },
        itemStyle: { borderColor: palette.tooltipBackground, borderWidth: 1 },
        data: slices.map((s) => ({ name: s.name, value: s.value })),
      },
    ],
  };
}

export interface TrendLine {
  name: string;
  color: string;
  points: readonly (readonly [number, number])[];
  area?: boolean;
}

/** Lines over time (the buckets' start times), from `from` to `to`. */
export function trendOption(
  lines: readonly TrendLine[],
  span: { from: number; to: number },
  palette: ChartPalette,
): ChartOption {
  const days = span.to - span.from > 86_400_000;
  return {
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'line' },
    },
    legend: { top: 0, textStyle: { color: palette.text } },
    grid: { left: 56, right: 16, top: 32, bottom: 28 },
    xAxis: {
      type: 'time',
      min: span.from,
      max: span.to,
      axisLabel: {
        ...axisText(palette),
        hideOverlap: true,
        formatter: (v: number) => (days ? formatTime(v).slice(5, 16) : formatTime(v).slice(11, 16)),
      },
      axisLine: { lineStyle: { color: palette.grid } },
      splitLine: { show: false },
    },
    yAxis: {
      type: 'value',
      minInterval: 1,
      axisLabel: axisText(palette),
      splitLine: { lineStyle: { color: palette.grid } },
    },
    series: lines.map((line) => ({
      type: 'line' as const,
      name: line.name,
      showSymbol: line.points.length < 60,
      symbolSize: 6,
      triggerLineEvent: true,
      itemStyle: { color: line.color },
      lineStyle: { color: line.color, width: 2 },
      ...(line.area ? { areaStyle: { color: line.color, opacity: 0.12 } } : {}),
      data: line.points.map((p) => [p[0], p[1]]),
    })),
  };
}

/** Bars of named counts: vertical, or horizontal (a ranking, the first at the top). */
export function barOption(
  bars: readonly (Slice & { color?: string })[],
  palette: ChartPalette,
  seriesName: string,
  horizontal = false,
): ChartOption {
  const names = bars.map((b) => b.name);
  const category = {
    type: 'category' as const,
    data: horizontal ? [...names].reverse() : names,
    axisLabel: { ...axisText(palette), width: horizontal ? 120 : 90, overflow: 'truncate' as const },
    axisLine: { lineStyle: { color: palette.grid } },
    axisTick: { show: false },
  };
  const value = {
    type: 'value' as const,
    minInterval: 1,
    axisLabel: axisText(palette),
    splitLine: { lineStyle: { color: palette.grid } },
  };
  const data = bars.map((b, i) => ({
    value: b.value,
    itemStyle: { color: b.color ?? palette.series[i % palette.series.length] },
  }));
  return {
    tooltip: { trigger: 'item', formatter: '{b}: {c}' },
    grid: { left: horizontal ? 132 : 48, right: 24, top: 16, bottom: 28 },
    xAxis: horizontal ? value : category,
    yAxis: horizontal ? category : value,
    series: [
      {
        type: 'bar',
        name: seriesName,
        barMaxWidth: 40,
        label: { show: true, position: horizontal ? 'right' : 'top', color: palette.text },
        data: horizontal ? [...data].reverse() : data,
      },
    ],
  };
}
