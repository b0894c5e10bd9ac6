package io.tributary.storage.binlog;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.storage.buffer.DurationText;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The global binlog's configuration, validated. Every key is declared once in {@link Key} with its
 * default and doc string; {@link #parse(Map)} reads a snapshot of string values (as the daemon's
 * configuration source supplies them) and reports every problem at once.
 *
 * <p>Sizes accept a number of bytes or a number with {@code B, KB, MB, GB, TB} (binary multiples:
 * {@code 1MB} = 1048576); durations accept {@code ms, s, m, h, d} or ISO-8601 ({@code PT10S}).
 * A retention of 0 means "no limit".
 *
 * @param dir               {@code binlog.dir}
 * @param flavor            {@code binlog.flavor}
 * @param fileSizeBytes     {@code binlog.file.size}
 * @param sync              {@code binlog.sync}
 * @param syncInterval      {@code binlog.sync.interval}
 * @param retentionBytes    {@code binlog.retention.size}, 0 = unlimited
 * @param retentionTime     {@code binlog.retention.time}, zero = unlimited
 * @param serverId          {@code binlog.server.id}
 * @param domainId          {@code binlog.domain.id}
 * @param ioRetryInterval   {@code binlog.io.retry.interval}
 */
public record BinlogConfig(Path dir, BinlogFlavor flavor, long fileSizeBytes, SyncPolicy sync, Duration syncInterval,
        long retentionBytes, Duration retentionTime, long serverId, long domainId, Duration ioRetryInterval) {

    /** The smallest file size accepted: room for the file header and a few transactions. */
    public static final long MIN_FILE_SIZE = 4096;
    /**
     * log_pos and COM_BINLOG_DUMP positions are 32 bits: the rotation threshold stays below 4 GiB, so only a
     * transaction larger than the room left carries a file past it (as on a server, see {@link GlobalBinlogWriter}).
     */
    public static final long MAX_FILE_SIZE = (1L << 32) - (64L << 20);

    /** Every key, its default and its meaning. */
    public enum Key {
        DIR("binlog.dir", null, "Directory of the global binlog files, their index, checkpoint and server UUID."),
        FLAVOR("binlog.flavor", "mysql", "Server the binlog looks like: mysql (8.0) or mariadb (10.11)."),
        FILE_SIZE("binlog.file.size", "500MB", "Rotate to a new file once a file passes this size (between transactions)."),
        SYNC("binlog.sync", "commit", "commit: fsync before a transaction is durable (group commit); interval; none."),
        SYNC_INTERVAL("binlog.sync.interval", "10ms", "fsync period with binlog.sync=interval."),
        RETENTION_SIZE("binlog.retention.size", "0", "Purge the oldest files while all files together exceed this; 0 = no limit."),
        RETENTION_TIME("binlog.retention.time", "7d", "Purge files last written longer ago than this; 0 = no limit."),
        SERVER_ID("binlog.server.id", "1", "server_id on every event written (1 to 4294967295)."),
        DOMAIN_ID("binlog.domain.id", "0", "MariaDB GTID domain id of the global transactions (0 to 4294967295)."),
        IO_RETRY_INTERVAL("binlog.io.retry.interval", "1s", "After a write error (disk full), how often writing is retried.");

        private final String key;
        private final String defaultValue;
        private final String doc;

        Key(String key, String defaultValue, String doc) {
            this.key = key;
            this.defaultValue = defaultValue;
            this.doc = doc;
        }

        public String key() {
            return key;
        }

        /** The default, or {@code null} when the key is required. */
        public String defaultValue() {
            return defaultValue;
        }

        public String doc() {
            return doc;
        }
    }

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([KMGT]?B?)?", Pattern.CASE_INSENSITIVE);

    public BinlogConfig {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(flavor, "flavor");
        Objects.requireNonNull(sync, "sync");
        Objects.requireNonNull(syncInterval, "syncInterval");
        Objects.requireNonNull(retentionTime, "retentionTime");
        Objects.requireNonNull(ioRetryInterval, "ioRetryInterval");
        List<String> problems = rangeProblems(fileSizeBytes, syncInterval, retentionBytes, retentionTime, serverId,
                domainId, ioRetryInterval);
        if (!problems.isEmpty()) {
            throw new BinlogConfigException(problems);
        }
    }

    /** Range checks of converted values; a {@code null} (not convertible) value is skipped. */
    private static List<String> rangeProblems(Long fileSizeBytes, Duration syncInterval, Long retentionBytes,
            Duration retentionTime, Long serverId, Long domainId, Duration ioRetryInterval) {
        List<String> problems = new ArrayList<>();
        check(problems, Key.FILE_SIZE, fileSizeBytes, v -> v >= MIN_FILE_SIZE && v <= MAX_FILE_SIZE,
                "must be " + MIN_FILE_SIZE + " to " + MAX_FILE_SIZE + " bytes (log_pos is 32 bits)");
        check(problems, Key.SYNC_INTERVAL, syncInterval, v -> !v.isNegative() && !v.isZero()
                && v.compareTo(Duration.ofMinutes(1)) <= 0, "must be more than 0 and at most 1 minute");
        check(problems, Key.RETENTION_SIZE, retentionBytes, v -> v >= 0, "must be 0 (no limit) or more");
        check(problems, Key.RETENTION_TIME, retentionTime, v -> !v.isNegative(), "must be 0 (no limit) or more");
        check(problems, Key.SERVER_ID, serverId, v -> v >= 1 && v <= 0xFFFF_FFFFL, "must be 1 to 4294967295");
        check(problems, Key.DOMAIN_ID, domainId, v -> v >= 0 && v <= 0xFFFF_FFFFL, "must be 0 to 4294967295");
        check(problems, Key.IO_RETRY_INTERVAL, ioRetryInterval, v -> !v.isNegative() && !v.isZero(),
                "must be more than 0");
        return problems;
    }

    /** Defaults for everything but the directory. */
    public static BinlogConfig defaults(Path dir) {
        return parse(Map.of(Key.DIR.key(), dir.toString()));
    }

    /**
     * Reads the {@code binlog.*} keys of {@code values}; absent keys take their default.
     *
     * @throws BinlogConfigException listing every invalid value
     */
    public static BinlogConfig parse(Map<String, String> values) {
        Parser p = new Parser(values);
        Path dir = p.get(Key.DIR, v -> {
            try {
                return Path.of(v);
            } catch (InvalidPathException e) {
                throw new IllegalArgumentException("not a path (" + e.getReason() + ")");
            }
        });
        BinlogFlavor flavor = p.get(Key.FLAVOR, v -> switch (v.toLowerCase(Locale.ROOT)) {
            case "mysql" -> BinlogFlavor.MYSQL;
            case "mariadb" -> BinlogFlavor.MARIADB;
            default -> throw new IllegalArgumentException("must be mysql or mariadb");
        });
        Long fileSize = p.get(Key.FILE_SIZE, BinlogConfig::parseSize);
        SyncPolicy sync = p.get(Key.SYNC, v -> switch (v.toLowerCase(Locale.ROOT)) {
            case "commit" -> SyncPolicy.COMMIT;
            case "interval" -> SyncPolicy.INTERVAL;
            case "none" -> SyncPolicy.NONE;
            default -> throw new IllegalArgumentException("must be commit, interval or none");
        });
        Duration syncInterval = p.get(Key.SYNC_INTERVAL, BinlogConfig::parseDuration);
        Long retentionSize = p.get(Key.RETENTION_SIZE, BinlogConfig::parseSize);
        Duration retentionTime = p.get(Key.RETENTION_TIME, BinlogConfig::parseDuration);
        Long serverId = p.get(Key.SERVER_ID, Long::parseLong);
        Long domainId = p.get(Key.DOMAIN_ID, Long::parseLong);
        Duration retry = p.get(Key.IO_RETRY_INTERVAL, BinlogConfig::parseDuration);
        List<String> problems = new ArrayList<>(p.problems);
        problems.addAll(rangeProblems(fileSize, syncInterval, retentionSize, retentionTime, serverId, domainId, retry));
        if (!problems.isEmpty()) {
            throw new BinlogConfigException(problems);
        }
        return new BinlogConfig(dir, flavor, fileSize, sync, syncInterval, retentionSize, retentionTime, serverId,
                domainId, retry);
    }

    /** {@code 500MB}, {@code 1 kb}, {@code 1048576}: binary multiples. */
    static long parseSize(String v) {
        Matcher m = SIZE.matcher(v.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size (e.g. 1048576, 512KB, 500MB, 1GB)");
        }
        String unit = m.group(2) == null ? "" : m.group(2).toUpperCase(Locale.ROOT);
        int shift = switch (unit) {
            case "", "B" -> 0;
            case "K", "KB" -> 10;
            case "M", "MB" -> 20;
            case "G", "GB" -> 30;
            case "T", "TB" -> 40;
            default -> throw new IllegalArgumentException("unknown size unit " + unit);
        };
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("number too large");
        }
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("number too large");
        }
        return n << shift;
    }

    /** {@code 10ms}, {@code 7d}, {@code 0}, {@code PT10S}. */
    static Duration parseDuration(String v) {
        return DurationText.parse(v, "10ms, 30s, 5m, 12h, 7d, PT10S");
    }

    private static <T> void check(List<String> problems, Key key, T value, java.util.function.Predicate<T> ok,
            String reason) {
        if (value != null && !ok.test(value)) {
            problems.add(invalid(key, value, reason));
        }
    }

    static String invalid(Key key, Object value, String reason) {
        return "Invalid value " + value + " for configuration " + key.key() + ": " + reason;
    }

    /** Collects conversion problems so that all of them are reported together. */
    private static final class Parser {
        private final Map<String, String> values;
        private final List<String> problems = new ArrayList<>();

        Parser(Map<String, String> values) {
            this.values = values;
        }

        <T> T get(Key key, Function<String, T> convert) {
            String v = values.getOrDefault(key.key(), key.defaultValue());
            if (v == null) {
                problems.add(invalid(key, null, "required"));
                return null;
            }
            try {
                return convert.apply(v.strip());
            } catch (IllegalArgumentException e) {
                problems.add(invalid(key, v, e.getMessage()));
                return null;
            }
        }
    }
}
