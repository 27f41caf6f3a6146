/**
 * Chart colours per theme: Carbon's categorical data-visualisation palettes (the light one on g10,
 * the dark one on g100) and text, axis and tooltip colours that read on each background.
 */
export interface ChartPalette {
  text: string;
  subtle: string;
  grid: string;
  tooltipBackground: string;
  tooltipText: string;
  /** Slices and bars, in order. */
  series: readonly string[];
  total: string;
  abnormal: string;
  attack: string;
  pass: string;
  block: string;
}

const LIGHT: ChartPalette = {
  text: '#161616',
  subtle: '#525252',
  grid: '#e0e0e0',
  tooltipBackground: '#ffffff',
  tooltipText: '#161616',
  series: [
    '#6929c4',
    '#1192e8',
    '#005d5d',
    '#9f1853',
    '#fa4d56',
    '#570408',
    '#198038',
    '#002d9c',
    '#ee538b',
    '#b28600',
  ],
  total: '#0f62fe',
  abnormal: '#da1e28',
  attack: '#da1e28',
  pass: '#198038',
  block: '#da1e28',
};

const DARK: ChartPalette = {
  text: '#f4f4f4',
  subtle: '#c6c6c6',
  grid: '#393939',
  tooltipBackground: '#393939',
  tooltipText: '#f4f4f4',
  series: [
    '#8a3ffc',
    '#33b1ff',
    '#007d79',
    '#ff7eb6',
    '#fa4d56',
    '#fff1f1',
    '#6fdc8c',
    '#4589ff',
    '#d12771',
    '#d2a106',
  ],
  total: '#78a9ff',
  abnormal: '#ff8389',
  attack: '#ff8389',
  pass: '#42be65',
  block: '#ff8389',
};

export function chartPalette(dark: boolean): ChartPalette {
  return dark ? DARK : LIGHT;
}
