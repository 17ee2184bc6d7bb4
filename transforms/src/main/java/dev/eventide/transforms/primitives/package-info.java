/**
 * The windowed Aggregate, the paper's one primitive, and the building blocks the operators are
 * composed from: {@link dev.eventide.transforms.primitives.Loop}, {@link
 * dev.eventide.transforms.primitives.Embed} and {@link dev.eventide.transforms.primitives.Unwrap}
 * over {@link dev.eventide.transforms.primitives.Embedded} lists, with the windows they take and
 * the metrics they report. Most users call the operators in {@code dev.eventide.transforms};
 * compose these to build operators of your own.
 */
package dev.eventide.transforms.primitives;
