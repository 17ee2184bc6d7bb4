package dev.eventide.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.junit.jupiter.api.Test;

class WatermarkFloorTest {
  private static final long START = BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis();

  @Test
  void aRestoredStepKeepsTheFloorItFoundBeforeItsFirstWatermark() {
    WatermarkFloor.Judge restored = new WatermarkFloor.Judge();
    assertEquals(40_000, restored.watermark(START, 40_000), "before the first watermark");
    assertEquals(40_000, restored.watermark(20_000, 90_000), "a lower first watermark");
    assertEquals(50_000, restored.watermark(50_000, 90_000), "the input watermark once later");
  }

  @Test
  void aFloorReadOnceTheWatermarkMovedIsNotUsed() {
    WatermarkFloor.Judge running = new WatermarkFloor.Judge();
    assertEquals(START, running.watermark(START, START), "a fresh start");
    assertEquals(10_000, running.watermark(10_000, 40_000), "a floor ahead of the watermark");
  }

  /** The DirectRunner restores no checkpoint: no floor, no side input, the start of time. */
  @Test
  void whereNothingRestoresThereIsNoFloor() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    assertNull(WatermarkFloor.of(p.apply(Create.of(1, 2, 3))));
    assertEquals(List.of(), WatermarkFloor.sideInputs(null));
    assertEquals(START, WatermarkFloor.read(null, null));
  }
}
