/**
 * Filter, Map, FlatMap and windowed Join expressed purely with one windowed aggregate primitive
 * plus lateness and loops, after Gulisano, Margara and Papatriantafilou, <i>On the Semantic Overlap
 * of Operators in Stream Processing Engines</i> (Middleware 2024).
 */
package dev.eventide.transforms;
