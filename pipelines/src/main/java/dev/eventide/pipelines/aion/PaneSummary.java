package dev.eventide.pipelines.aion;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.Serializable;
import org.apache.beam.sdk.coders.DefaultCoder;
import org.apache.beam.sdk.coders.SerializableCoder;

/**
 * One pane of one window of an {@link AionPipeline}, as written to the output directory.
 *
 * @param windowStart window start, epoch milliseconds
 * @param windowEnd window end (exclusive), epoch milliseconds
 * @param paneIndex Beam's pane index: 0 for the first pane of the window
 * @param timing Beam's pane timing: EARLY, ON_TIME or LATE
 * @param last whether this is the window's final pane
 * @param count events in the window so far (panes accumulate)
 * @param sum their values' sum
 * @param result the workload's result over them (an average, a bigram)
 */
@DefaultCoder(SerializableCoder.class)
public record PaneSummary(
    @JsonProperty("window_start") long windowStart,
    @JsonProperty("window_end") long windowEnd,
    @JsonProperty("pane") long paneIndex,
    @JsonProperty("timing") String timing,
    @JsonProperty("last") boolean last,
    @JsonProperty("count") long count,
    @JsonProperty("sum") long sum,
    @JsonProperty("result") String result)
    implements Serializable {}
