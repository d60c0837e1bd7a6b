// Entry for static/vendor/chart.js: the Observable Plot marks the chart view draws.
export { barY, dot, lineY, plot, ruleY } from "@observablehq/plot";
