/**
 * Checks shared by the primitives and the operators; public only so that both packages reach them,
 * not part of Eventide's API.
 */
package dev.eventide.transforms.internal;
