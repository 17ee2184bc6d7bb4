/**
 * Windowed processing with very long allowed lateness whose window state spills from memory to
 * local disk or Google Cloud Storage, with pre-staging, predictive cleanup and a staleness trigger,
 * after Esteves et al., <i>Aion: Better Late than Never in Event-Time Streams</i>.
 */
package dev.eventide.tiering;
