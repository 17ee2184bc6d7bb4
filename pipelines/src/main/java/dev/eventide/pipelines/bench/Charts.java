package dev.eventide.pipelines.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeriesCollection;

/** Writes benchmark results as charts (PNG). */
public final class Charts {
  private Charts() {}

  /** Writes the throughput of {@code results} (one runner) to {@code file}. */
  public static void throughput(Path file, String runner, List<TransformsBenchmark.Result> results)
      throws IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (TransformsBenchmark.Result r : results) {
      data.addValue(r.eventsPerSecond(), r.variant(), r.operator());
    }
    logBars(
        file,
        "Eventide transforms on " + runner + ": native (D), Aggregate+Loop (A), unrolled (U), A+",
        "operator",
        "events/s (log scale)",
        data);
  }

  /** Writes a line chart of {@code data}, one line per series, with markers at the points. */
  public static void lines(
      Path file, String title, String xLabel, String yLabel, XYSeriesCollection data)
      throws IOException {
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            title, xLabel, yLabel, data, PlotOrientation.VERTICAL, true, false, false);
    ((XYLineAndShapeRenderer) chart.getXYPlot().getRenderer()).setDefaultShapesVisible(true);
    save(file, chart);
  }

  /**
   * Writes a grouped bar chart with a logarithmic value axis: rows of {@code data} are the series,
   * columns the categories.
   */
  public static void logBars(
      Path file, String title, String categoryLabel, String valueLabel, DefaultCategoryDataset data)
      throws IOException {
    LogAxis axis = new LogAxis(valueLabel);
    axis.setSmallestValue(1);
    axis.setNumberFormatOverride(new java.text.DecimalFormat("#,##0"));
    CategoryPlot plot =
        new CategoryPlot(data, new CategoryAxis(categoryLabel), axis, new BarRenderer());
    save(file, new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true));
  }

  private static void save(Path file, JFreeChart chart) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    ChartUtils.saveChartAsPNG(file.toFile(), chart, 1000, 520);
  }
}
