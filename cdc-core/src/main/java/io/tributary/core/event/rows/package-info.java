/**
 * Row images of rows events decoded into typed column values.
 *
 * <p>Input is the part of a WRITE/UPDATE/DELETE/PARTIAL_UPDATE rows event body that follows the
 * columns-present bitmaps, plus the table's {@link io.tributary.core.event.rows.TableColumns} built from
 * its TABLE_MAP event. {@link io.tributary.core.event.rows.RowImageDecoder} turns it into
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
