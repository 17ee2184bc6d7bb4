/**
 * The engines' implementation: query plans, sharing, running sums, exact arithmetic and the state
 * snapshots the Beam adapter keeps. Internal to Eventide: public only for {@code
 * dev.eventide.trends.engine.Engines} and the adapter ({@code eventide-trend-aggregation}), and
 * free to change in any release. Users choose an engine with {@code Engines}.
 */
package dev.eventide.trends.internal.engine;
