package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.Schema.FieldType;
import org.apache.beam.sdk.schemas.SchemaProvider;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The Beam schemas of {@link Event}, {@link TrendResult} and {@link DeadLetter}, so they convert to
 * and from {@link Row}s ({@code Convert.toRows()}, Beam SQL, schema-aware sinks). Beam finds them
 * by itself (this class is registered as a {@link SchemaProvider}).
 *
 * <ul>
 *   <li>Event: {@code type STRING, time INT64} (epoch ms), {@code attributes ARRAY<ROW<name STRING,
 *       number DECIMAL?, text STRING?>>} (exactly one of number and text set).
 *   <li>TrendResult: {@code query STRING, group ARRAY<ROW<...>>} (the GROUPBY values, in GROUPBY
 *       order, as above), {@code windowStart INT64, windowEnd INT64, value STRING?}.
 *   <li>DeadLetter: {@code event ROW<Event>, reason STRING}.
 * </ul>
 */
final class TrendSchemas implements SchemaProvider {
  private static final long serialVersionUID = 1L;

  /** A named value: an attribute of an event or a GROUPBY value of a result. */
  public static final Schema NAMED_VALUE =
      Schema.builder()
          .addStringField("name")
          .addNullableField("number", FieldType.DECIMAL)
          .addNullableField("text", FieldType.STRING)
          .build();

  public static final Schema EVENT =
      Schema.builder()
          .addStringField("type")
          .addInt64Field("time")
          .addArrayField("attributes", FieldType.row(NAMED_VALUE))
          .build();

  public static final Schema RESULT =
      Schema.builder()
          .addStringField("query")
          .addArrayField("group", FieldType.row(NAMED_VALUE))
          .addInt64Field("windowStart")
          .addInt64Field("windowEnd")
          .addNullableField("value", FieldType.STRING)
          .build();

  public static final Schema DEAD_LETTER =
      Schema.builder().addRowField("event", EVENT).addStringField("reason").build();

  public static Row toRow(Event e) {
    return Row.withSchema(EVENT).addValues(e.type(), e.time(), namedValues(e.attributes())).build();
  }

  public static Event eventFromRow(Row row) {
    return Event.of(
        row.getString("type"), row.getInt64("time"), values(row.getArray("attributes")));
  }

  public static Row toRow(TrendResult r) {
    return Row.withSchema(RESULT)
        .addValues(r.query(), namedValues(r.group()), r.windowStart(), r.windowEnd(), r.value())
        .build();
  }

  public static TrendResult resultFromRow(Row row) {
    return new TrendResult(
        row.getString("query"),
        values(row.getArray("group")),
        row.getInt64("windowStart"),
        row.getInt64("windowEnd"),
        row.getString("value"));
  }

  public static Row toRow(DeadLetter d) {
    return Row.withSchema(DEAD_LETTER).addValues(toRow(d.event()), d.reason()).build();
  }

  public static DeadLetter deadLetterFromRow(Row row) {
    return new DeadLetter(eventFromRow(row.getRow("event")), row.getString("reason"));
  }

  private static List<Row> namedValues(Map<String, Object> values) {
    List<Row> rows = new ArrayList<>(values.size());
    values.forEach(
        (name, value) ->
            rows.add(
                Row.withSchema(NAMED_VALUE)
                    .addValues(
                        name,
                        value instanceof BigDecimal d ? d : null,
                        value instanceof String s ? s : null)
                    .build()));
    return rows;
  }

  private static Map<String, Object> values(@Nullable Iterable<Row> rows) {
    Map<String, Object> values = new LinkedHashMap<>();
    if (rows != null) {
      for (Row r : rows) {
        String name = r.getString("name");
        BigDecimal number = r.getDecimal("number");
        String text = r.getString("text");
        if ((number == null) == (text == null)) {
          throw new IllegalArgumentException(
              "value '" + name + "' must have exactly one of number and text, but was " + r);
        }
        values.put(name, number != null ? number : text);
      }
    }
    return values;
  }

  // The SchemaProvider Beam's SchemaRegistry finds through TrendSchemas.Registrar.

  @Override
  public <T> @Nullable Schema schemaFor(TypeDescriptor<T> type) {
    Class<?> raw = type.getRawType();
    if (raw == Event.class) {
      return EVENT;
    }
    if (raw == TrendResult.class) {
      return RESULT;
    }
    if (raw == DeadLetter.class) {
      return DEAD_LETTER;
    }
    return null;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> @Nullable SerializableFunction<T, Row> toRowFunction(TypeDescriptor<T> type) {
    Class<?> raw = type.getRawType();
    if (raw == Event.class) {
      return v -> toRow((Event) v);
    }
    if (raw == TrendResult.class) {
      return v -> toRow((TrendResult) v);
    }
    if (raw == DeadLetter.class) {
      return v -> toRow((DeadLetter) v);
    }
    return null;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> @Nullable SerializableFunction<Row, T> fromRowFunction(TypeDescriptor<T> type) {
    Class<?> raw = type.getRawType();
    if (raw == Event.class) {
      return row -> (T) eventFromRow(row);
    }
    if (raw == TrendResult.class) {
      return row -> (T) resultFromRow(row);
    }
    if (raw == DeadLetter.class) {
      return row -> (T) deadLetterFromRow(row);
    }
    return null;
  }
}
