/**
 * Row images of rows events decoded into typed column values.
 *
 * <p>{@link io.tributary.core.event.rows.RowsEventDecoder} is the entry point: it takes a rows event as
 * {@link io.tributary.core.event.BinlogEventDecoder} yields it and the
 * {@link io.tributary.core.event.TableMapEvent} of its table, builds the table's
 * {@link io.tributary.core.event.rows.TableColumns} ({@code TableColumns.of}) and hands the part of the
 * body that follows the columns-present bitmaps to {@link io.tributary.core.event.rows.RowImageDecoder},
 * which turns it into
 * {@link io.tributary.core.event.rows.Row}s; {@link io.tributary.core.event.rows.JsonDiffApplier} rebuilds
 * full JSON values from MySQL partial JSON updates. The relay path never uses this package: only features
 * that need values do.
 *
 * <p>References: MySQL {@code sql/rpl_record.cc} (row image layout), {@code sql/log_event.cc}
 * ({@code log_event_print_value}), {@code mysys/my_time.cc} (temporal packing), {@code strings/decimal.cc}
 * (packed decimal), {@code sql-common/json_binary.cc} and {@code sql/json_diff.cc}; MariaDB
 * {@code sql/log_event_client.cc} for the {@code mariadb-binlog --verbose} rendering.
 */
package io.tributary.core.event.rows;
