package io.tributary.storage.binlog;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.config.ConfigKey;
import io.tributary.core.config.ConfigProblems;
import io.tributary.core.config.ConfigurationException;
import io.tributary.core.config.DurationText;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The global binlog's configuration, validated. Every key is declared once below ({@link #KEYS}) with its
 * default, validator and doc string; {@link #parse(Map)} reads a snapshot of string values (as the daemon's
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
 * @param serverUuid        {@code binlog.server.uuid}, null when not set ({@link #effectiveServerUuid()} derives it)
 */
public record BinlogConfig(Path dir, BinlogFlavor flavor, long fileSizeBytes, SyncPolicy sync, Duration syncInterval,
        long retentionBytes, Duration retentionTime, long serverId, long domainId, Duration ioRetryInterval,
        UUID serverUuid) {

    /** The smallest file size accepted: room for the file header and a few transactions. */
    public static final long MIN_FILE_SIZE = 4096;
    /**
     * log_pos and COM_BINLOG_DUMP positions are 32 bits: the rotation threshold stays below 4 GiB, so only a
     * transaction larger than the room left carries a file past it (as on a server, see {@link GlobalBinlogWriter}).
     */
    public static final long MAX_FILE_SIZE = (1L << 32) - (64L << 20);

    public static final ConfigKey<Path> DIR = ConfigKey.define("binlog.dir", Path.class).required()
            .parser(BinlogConfig::parsePath)
            .doc("Directory of the global binlog files, their index, checkpoint and server UUID.").build();
    public static final ConfigKey<BinlogFlavor> FLAVOR = ConfigKey.define("binlog.flavor", BinlogFlavor.class)
            .defaultValue("mysql").parser(v -> switch (v.toLowerCase(Locale.ROOT)) {
                case "mysql" -> BinlogFlavor.MYSQL;
                case "mariadb" -> BinlogFlavor.MARIADB;
                default -> throw new IllegalArgumentException("must be mysql or mariadb");
            }).formatter(v -> v.name().toLowerCase(Locale.ROOT))
            .doc("Server the binlog looks like: mysql (8.0) or mariadb (10.11).").build();
    public static final ConfigKey<Long> FILE_SIZE = ConfigKey.define("binlog.file.size", Long.class)
            .defaultValue("500MB").parser(BinlogConfig::parseSize)
            .validator(v -> require(v >= MIN_FILE_SIZE && v <= MAX_FILE_SIZE,
                    "must be " + MIN_FILE_SIZE + " to " + MAX_FILE_SIZE + " bytes (log_pos is 32 bits)"))
            .doc("Rotate to a new file once a file passes this size (always between transactions).").build();
    public static final ConfigKey<SyncPolicy> SYNC = ConfigKey.define("binlog.sync", SyncPolicy.class)
            .defaultValue("commit").parser(v -> switch (v.toLowerCase(Locale.ROOT)) {
                case "commit" -> SyncPolicy.COMMIT;
                case "interval" -> SyncPolicy.INTERVAL;
                case "none" -> SyncPolicy.NONE;
                default -> throw new IllegalArgumentException("must be commit, interval or none");
            }).formatter(v -> v.name().toLowerCase(Locale.ROOT))
            .doc("commit: fsync before a transaction counts as durable (group commit); interval: every"
                    + " binlog.sync.interval; none.").build();
    public static final ConfigKey<Duration> SYNC_INTERVAL = ConfigKey.define("binlog.sync.interval", Duration.class)
            .defaultValue("10ms").parser(BinlogConfig::parseDuration)
            .validator(v -> require(!v.isNegative() && !v.isZero() && v.compareTo(Duration.ofMinutes(1)) <= 0,
                    "must be more than 0 and at most 1 minute"))
            .doc("fsync period with binlog.sync=interval.").build();
    public static final ConfigKey<Long> RETENTION_SIZE = ConfigKey.define("binlog.retention.size", Long.class)
            .defaultValue("0").parser(BinlogConfig::parseSize)
            .validator(v -> require(v >= 0, "must be 0 (no limit) or more"))
            .doc("Purge the oldest files while all files together exceed this; 0 = no limit.").build();
    public static final ConfigKey<Duration> RETENTION_TIME = ConfigKey.define("binlog.retention.time", Duration.class)
            .defaultValue("7d").parser(BinlogConfig::parseDuration)
            .validator(v -> require(!v.isNegative(), "must be 0 (no limit) or more"))
            .doc("Purge files last written longer ago than this; 0 = no limit.").build();
    public static final ConfigKey<Long> SERVER_ID = ConfigKey.define("binlog.server.id", Long.class)
            .defaultValue("1").parser(Long::parseLong)
            .validator(v -> require(v >= 1 && v <= 0xFFFF_FFFFL, "must be 1 to 4294967295"))
            .doc("server_id on every event written (1 to 4294967295); distinct from every replica's.").build();
    public static final ConfigKey<Long> DOMAIN_ID = ConfigKey.define("binlog.domain.id", Long.class)
            .defaultValue("0").parser(Long::parseLong)
            .validator(v -> require(v >= 0 && v <= 0xFFFF_FFFFL, "must be 0 to 4294967295"))
            .doc("MariaDB GTID domain id of the global transactions (0 to 4294967295).").build();
    public static final ConfigKey<Duration> IO_RETRY_INTERVAL = ConfigKey.define("binlog.io.retry.interval",
            Duration.class).defaultValue("1s").parser(BinlogConfig::parseDuration)
            .validator(v -> require(!v.isNegative() && !v.isZero(), "must be more than 0"))
            .doc("After a write error (disk full), how often writing is retried.").build();
    public static final ConfigKey<UUID> SERVER_UUID = ConfigKey.define("binlog.server.uuid", UUID.class)
            .computedDefault(() -> null, "derived from binlog.server.id (name-based UUID of"
                    + " 'tributary:binlog.server.id=<id>')")
            .parser(BinlogConfig::parseUuid)
            .doc("Server UUID of the global GTIDs (MySQL flavor; MariaDB GTIDs use binlog.domain.id and"
                    + " binlog.server.id), also reported as @@server_uuid. Twins writing the same global binlog"
                    + " must have the same one, which the default (a function of binlog.server.id) gives them. Kept"
                    + " in binlog.dir/auto.cnf when the first file is created; a different value later is refused.")
            .build();

    /** Every {@code binlog.*} key, in declaration order. */
    public static final List<ConfigKey<?>> KEYS = List.of(DIR, FLAVOR, FILE_SIZE, SYNC, SYNC_INTERVAL, RETENTION_SIZE,
            RETENTION_TIME, SERVER_ID, DOMAIN_ID, IO_RETRY_INTERVAL, SERVER_UUID);

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([KMGT]?B?)?", Pattern.CASE_INSENSITIVE);

    public BinlogConfig {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(flavor, "flavor");
        Objects.requireNonNull(sync, "sync");
        Objects.requireNonNull(syncInterval, "syncInterval");
        Objects.requireNonNull(retentionTime, "retentionTime");
        Objects.requireNonNull(ioRetryInterval, "ioRetryInterval");
        ConfigProblems problems = new ConfigProblems();
        checkRanges(problems, fileSizeBytes, syncInterval, retentionBytes, retentionTime, serverId, domainId,
                ioRetryInterval);
        problems.throwIfAny();
    }

    /** Range checks of converted values, in declaration order; a {@code null} (not convertible) value is skipped. */
    private static void checkRanges(ConfigProblems problems, Long fileSizeBytes, Duration syncInterval,
            Long retentionBytes, Duration retentionTime, Long serverId, Long domainId, Duration ioRetryInterval) {
        problems.check(FILE_SIZE, fileSizeBytes);
        problems.check(SYNC_INTERVAL, syncInterval);
        problems.check(RETENTION_SIZE, retentionBytes);
        problems.check(RETENTION_TIME, retentionTime);
        problems.check(SERVER_ID, serverId);
        problems.check(DOMAIN_ID, domainId);
        problems.check(IO_RETRY_INTERVAL, ioRetryInterval);
    }

    /** Defaults for everything but the directory. */
    public static BinlogConfig defaults(Path dir) {
        return parse(Map.of(DIR.name(), dir.toString()));
    }

    /**
     * Reads the {@code binlog.*} keys of {@code values}; absent keys take their default. Every value is converted
     * first, then every range is checked, so that all problems are reported together.
     *
     * @throws ConfigurationException listing every invalid value
     */
    public static BinlogConfig parse(Map<String, String> values) {
        ConfigProblems problems = new ConfigProblems();
        Path dir = convert(values, DIR, problems);
        BinlogFlavor flavor = convert(values, FLAVOR, problems);
        Long fileSize = convert(values, FILE_SIZE, problems);
        SyncPolicy sync = convert(values, SYNC, problems);
        Duration syncInterval = convert(values, SYNC_INTERVAL, problems);
        Long retentionSize = convert(values, RETENTION_SIZE, problems);
        Duration retentionTime = convert(values, RETENTION_TIME, problems);
        Long serverId = convert(values, SERVER_ID, problems);
        Long domainId = convert(values, DOMAIN_ID, problems);
        Duration retry = convert(values, IO_RETRY_INTERVAL, problems);
        String uuidText = values.get(SERVER_UUID.name());
        UUID uuid = uuidText == null ? null : problems.read(SERVER_UUID, SERVER_UUID.name(), uuidText, false);
        checkRanges(problems, fileSize, syncInterval, retentionSize, retentionTime, serverId, domainId, retry);
        problems.throwIfAny();
        return new BinlogConfig(dir, flavor, fileSize, sync, syncInterval, retentionSize, retentionTime, serverId,
                domainId, retry, uuid);
    }

    /**
     * The server UUID of the GTIDs: {@code binlog.server.uuid}, or when it is not set, the name-based (version 3)
     * UUID of {@code tributary:binlog.server.id=<id>}: a function of the configuration alone, so that twins with
     * the same {@code binlog.server.id} write the same GTIDs.
     */
    public UUID effectiveServerUuid() {
        return serverUuid != null ? serverUuid : derivedServerUuid(serverId);
    }

    /** The default of {@code binlog.server.uuid} for {@code serverId}. */
    public static UUID derivedServerUuid(long serverId) {
        return UUID.nameUUIDFromBytes(("tributary:binlog.server.id=" + serverId)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Only the canonical 8-4-4-4-12 hexadecimal form ({@link UUID#fromString} accepts shorter groups too). */
    static UUID parseUuid(String v) {
        if (!v.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
            throw new IllegalArgumentException("not a UUID (32 hexadecimal digits as 8-4-4-4-12, e.g."
                    + " 3e11fa47-71ca-11e1-9e33-c80aa9429562)");
        }
        UUID u = UUID.fromString(v);
        if (u.getMostSignificantBits() == 0 && u.getLeastSignificantBits() == 0) {
            throw new IllegalArgumentException("must not be the nil UUID (MySQL reads it as no server UUID)");
        }
        return u;
    }

    /** The key's value (or default) converted; null, with the problem recorded, when absent or not convertible. */
    private static <T> T convert(Map<String, String> values, ConfigKey<T> key, ConfigProblems problems) {
        String v = values.getOrDefault(key.name(), key.defaultText());
        if (v == null) {
            problems.add(key.name(), null, "required");
            return null;
        }
        return problems.read(key, key.name(), v, false);
    }

    private static Path parsePath(String v) {
        try {
            return Path.of(v);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("not a path (" + e.getReason() + ")");
        }
    }

    private static void require(boolean ok, String reason) {
        if (!ok) {
            throw new IllegalArgumentException(reason);
        }
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
}
