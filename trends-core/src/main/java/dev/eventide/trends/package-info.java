/**
 * Aggregation over Kleene-pattern event trends for a workload of many queries, sharing work across
 * queries only when it pays, after Poppe et al., <i>To Share, or not to Share: Online Event Trend
 * Aggregation Over Bursty Event Streams</i> (HAMLET, SIGMOD 2021).
 */
package dev.eventide.trends;
