package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.Schema.FieldType;
import org.apache.beam.sdk.schemas.Schema.TypeName;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.joda.time.ReadableInstant;

/**
 * Turns other records into trend {@link Event}s.
 *
 * <pre>{@code
 * // rows with fields type STRING, time INT64 (epoch ms), and numeric or string attributes
 * PCollection<Event> events = rows.apply(TrendEvents.fromRows("type", "time"));
 * TrendAggregate.Result out = events.apply(TrendAggregate.of(workload));
 * }</pre>
 */
public final class TrendEvents {
  private TrendEvents() {}

  /**
   * Turns schema'd rows into events: the event type is the STRING field {@code typeField}, the time
   * the INT64 (epoch ms) or DATETIME field {@code timeField}, and every other numeric (exactly, as
   * a decimal) or STRING field an attribute; a null, NaN or infinite attribute is left out (and
   * {@link TrendAggregate} dead-letters an event that lacks one its queries need). Each event is
   * timestamped at its time. Both fields must be non-nullable, and the other fields numbers or
   * strings, which is checked when the pipeline is built.
   */
  public static PTransform<PCollection<Row>, PCollection<Event>> fromRows(
      String typeField, String timeField) {
    Objects.requireNonNull(typeField, "typeField");
    Objects.requireNonNull(timeField, "timeField");
    return new FromRows(typeField, timeField);
  }

  private static final class FromRows extends PTransform<PCollection<Row>, PCollection<Event>> {
    private static final long serialVersionUID = 1L;
    private final String typeField;
    private final String timeField;

    FromRows(String typeField, String timeField) {
      this.typeField = typeField;
      this.timeField = timeField;
    }

    @Override
    public PCollection<Event> expand(PCollection<Row> rows) {
      if (!rows.hasSchema()) {
        throw new IllegalArgumentException(
            "TrendEvents.fromRows needs a PCollection with a schema");
      }
      Schema schema = rows.getSchema();
      check(schema, typeField, "the event type", List.of(TypeName.STRING));
      check(schema, timeField, "the event time", List.of(TypeName.INT64, TypeName.DATETIME));
      List<String> attributes = new ArrayList<>();
      for (Schema.Field f : schema.getFields()) {
        if (f.getName().equals(typeField) || f.getName().equals(timeField)) {
          continue;
        }
        TypeName type = f.getType().getTypeName();
        if (!type.isNumericType() && type != TypeName.STRING) {
          throw new IllegalArgumentException(
              "field '"
                  + f.getName()
                  + "' is "
                  + f.getType()
                  + ", but event attributes are numbers or strings: drop or convert it first");
        }
        attributes.add(f.getName());
      }
      return rows.apply(ParDo.of(new ToEvent(typeField, timeField, attributes)))
          .setCoder(EventCoder.of());
    }

    private static void check(Schema schema, String name, String what, List<TypeName> allowed) {
      if (!schema.hasField(name)) {
        throw new IllegalArgumentException(
            "no field '" + name + "' for " + what + " in the schema " + schema.getFieldNames());
      }
      FieldType type = schema.getField(name).getType();
      if (!allowed.contains(type.getTypeName()) || type.getNullable()) {
        throw new IllegalArgumentException(
            "field '"
                + name
                + "' ("
                + what
                + ") must be a non-nullable "
                + allowed
                + ", but is "
                + type
                + (type.getNullable() ? " (nullable)" : ""));
      }
    }
  }

  private static final class ToEvent extends DoFn<Row, Event> {
    private final String typeField;
    private final String timeField;
    private final List<String> attributes;

    ToEvent(String typeField, String timeField, List<String> attributes) {
      this.typeField = typeField;
      this.timeField = timeField;
      this.attributes = attributes;
    }

    @ProcessElement
    public void process(@Element Row row, OutputReceiver<Event> out) {
      Object time = row.getValue(timeField);
      long millis = time instanceof ReadableInstant i ? i.getMillis() : (Long) time;
      Map<String, Object> values = new LinkedHashMap<>();
      for (String a : attributes) {
        Object v = row.getValue(a);
        if (v instanceof Float || v instanceof Double) {
          double d = ((Number) v).doubleValue();
          v = Double.isFinite(d) ? new BigDecimal(v.toString()) : null;
        } else if (v instanceof Number n && !(v instanceof BigDecimal)) {
          v = BigDecimal.valueOf(n.longValue());
        }
        if (v != null) {
          values.put(a, v);
        }
      }
      out.outputWithTimestamp(
          Event.of(row.getString(typeField), millis, values), new Instant(millis));
    }

    /** An event keeps its own time as timestamp, which may be before the row's. */
    @Override
    @SuppressWarnings("deprecation")
    public Duration getAllowedTimestampSkew() {
      return Duration.millis(Long.MAX_VALUE);
    }
  }
}
