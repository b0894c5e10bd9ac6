package io.tributary.core.naming;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.event.rows.RowsReshaper;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What the rewrite of a shard's rows into the logical shape needs to know of the shard's server beyond its binlog
 * (issue 16): its flavor (a JSON column is a LONGTEXT on MariaDB, binary JSON on MySQL) and its time zone (the
 * local time of a {@code DATETIME DEFAULT CURRENT_TIMESTAMP}, and the zone a {@code TIMESTAMP} literal default is
 * read in when the DDL's session had none of its own) and its {@code binlog_row_image} (which images a column the
 * statement did not give is in).
 *
 * @param flavor       the shard's server flavor
 * @param timeZone     the server's time zone ({@link #zone(String, String)} of its {@code @@global.time_zone} and
 *                     {@code @@system_time_zone}), asked only when a rewrite needs it; it throws
 *                     {@link IllegalStateException} saying why when it is not known
 * @param rowImage     the server's {@code @@global.binlog_row_image}, asked only when a rewrite adds a column; FULL
 *                     when it cannot be asked (an added column is then given where a MINIMAL server leaves it
 *                     out: the same row for a consumer, which takes a column not given for its default)
 * @param ddlTimeZone  the time zone of the session that ran the DDL whose shape the rows are rewritten into (its query
 *                     event's {@code Q_TIME_ZONE_CODE}), or null when the session had none set
 */
public record ShardServer(BinlogFlavor flavor, Supplier<ZoneId> timeZone, Supplier<RowsReshaper.RowImage> rowImage,
        String ddlTimeZone) {

    public ShardServer {
        Objects.requireNonNull(flavor, "flavor");
        Objects.requireNonNull(timeZone, "timeZone");
        Objects.requireNonNull(rowImage, "rowImage");
    }

    /** A server whose time zone is not known: rewrites that need it are refused. */
    public static ShardServer withoutTimeZone(BinlogFlavor flavor) {
        return new ShardServer(flavor, () -> {
            throw new IllegalStateException("the shard server's time zone is not known here");
        }, () -> RowsReshaper.RowImage.FULL, null);
    }

    /** A server of a known time zone. */
    public static ShardServer of(BinlogFlavor flavor, ZoneId zone) {
        Objects.requireNonNull(zone, "zone");
        return new ShardServer(flavor, () -> zone, () -> RowsReshaper.RowImage.FULL, null);
    }

    /** The same server with {@code binlog_row_image} {@code rowImage}. */
    public ShardServer withRowImage(RowsReshaper.RowImage rowImage) {
        Objects.requireNonNull(rowImage, "rowImage");
        return new ShardServer(flavor, timeZone, () -> rowImage, ddlTimeZone);
    }

    /** The same server, rows rewritten into the shape of a DDL run in session time zone {@code ddlTimeZone}. */
    public ShardServer withDdlTimeZone(String ddlTimeZone) {
        return new ShardServer(flavor, timeZone, rowImage, ddlTimeZone);
    }

    /** The zone a TIMESTAMP literal of the DDL is read in: the DDL session's, else the server's. */
    public ZoneId literalZone() {
        return ddlTimeZone == null ? timeZone.get() : zone(ddlTimeZone, null);
    }

    /** A server's {@code binlog_row_image} value ({@code FULL}, {@code NOBLOB}, {@code MINIMAL}, any case). */
    public static RowsReshaper.RowImage rowImage(String value) {
        try {
            return RowsReshaper.RowImage.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("binlog_row_image '" + value + "' is none of FULL, NOBLOB, MINIMAL", e);
        }
    }

    /**
     * A server's {@code time_zone} as a {@link ZoneId}: {@code SYSTEM} is {@code systemTimeZone}
     * ({@code @@system_time_zone}), an offset ({@code +05:30}) a fixed offset, a name ({@code Europe/Paris},
     * {@code UTC}) that zone, with Java's meaning of the short ids ({@link ZoneId#SHORT_IDS}: {@code EST} is
     * {@code -05:00}).
     *
     * @throws IllegalStateException when it names no zone Java knows (e.g. a daylight-saving abbreviation such as
     *                               {@code CEST}, which {@code @@system_time_zone} may hold): set the server's
     *                               {@code time_zone} to a zone name or an offset
     */
    public static ZoneId zone(String timeZone, String systemTimeZone) {
        String tz = Objects.requireNonNull(timeZone, "timeZone").trim();
        if (tz.equalsIgnoreCase("SYSTEM")) {
            if (systemTimeZone == null) {
                throw new IllegalStateException("time zone SYSTEM without @@system_time_zone");
            }
            tz = systemTimeZone.trim();
        }
        try {
            if (tz.startsWith("+") || tz.startsWith("-")) {
                return ZoneOffset.of(tz.length() == 5 ? tz.charAt(0) + "0" + tz.substring(1) : tz);
            }
            return ZoneId.of(tz.toUpperCase(Locale.ROOT).equals("UTC") ? "UTC" : tz, ZoneId.SHORT_IDS);
        } catch (DateTimeException e) {
            throw new IllegalStateException("time zone '" + tz + "' is not a zone name or offset Java knows ("
                    + e.getMessage() + "): set the shard server's @@global.time_zone to a zone name (Europe/Paris) or"
                    + " an offset (+01:00)", e);
        }
    }
}
