/**
 * The trend engines by name: {@link dev.eventide.trends.engine.Engines} creates one for a workload
 * ({@code hamlet}, {@code hamlet-static}, {@code unshared}, {@code greta}) or evaluates a workload
 * over events in time order. Their implementation is internal to Eventide.
 */
package dev.eventide.trends.engine;
