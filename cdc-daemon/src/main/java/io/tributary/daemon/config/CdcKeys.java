package io.tributary.daemon.config;

import io.tributary.core.config.ConfigKey;
import io.tributary.core.config.DurationText;
import io.tributary.core.naming.NamingRule;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The daemon's own keys ({@code cdc.*}), each declared once with its default, parser, validator and doc text.
 * {@code [i]} stands for a list entry's index. {@link TributaryConfigLoader} reads them; the {@code storage.*},
 * {@code binlog.*} and {@code dump.*} keys are declared by their owners, and {@link ConfigCatalogue} lists all.
 */
public final class CdcKeys {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final String SERVER_ID_RANGE =
            "a server id is 1 to 4294967295 and must differ from every other replica of the shard";

    public static final ConfigKey<String> SHARD_NAME = ConfigKey.define("cdc.shards[i].name", String.class)
            .computedDefault(() -> null, "shard-<i>")
            .parser(v -> {
                if (!NAME.matcher(v).matches()) {
                    throw new IllegalArgumentException("1 to 64 letters, digits, '_', '-' or '.'");
                }
                return v;
            })
            .doc("One entry per shard, in a fixed order: the index breaks ordering ties, so keep the order stable."
                    + " The shard's name in logs, metrics and health; unique.")
            .build();
    public static final ConfigKey<String> SHARD_HOST = ConfigKey.define("cdc.shards[i].host", String.class).required()
            .parser(nonBlank("a host name or address is required"))
            .doc("Host name or address of the shard's MySQL or MariaDB server.").build();
    public static final ConfigKey<Integer> SHARD_PORT = ConfigKey.define("cdc.shards[i].port", Integer.class)
            .defaultValue("3306").parser(CdcKeys::port).doc("Its port, 1 to 65535.").build();
    public static final ConfigKey<String> SHARD_USER = ConfigKey.define("cdc.shards[i].user", String.class).required()
            .parser(nonBlank("the replication account is required"))
            .doc("The account needs REPLICATION SLAVE, REPLICATION CLIENT (MariaDB: BINLOG MONITOR), SELECT, and all"
                    + " privileges on `__cdc__` (the heartbeat table).")
            .build();
    public static final ConfigKey<String> SHARD_PASSWORD = ConfigKey.define("cdc.shards[i].password", String.class)
            .parser(v -> v).doc("The account's password, inline; or password-env (not both).").build();
    public static final ConfigKey<String> SHARD_PASSWORD_ENV = ConfigKey.define("cdc.shards[i].password-env",
            String.class).parser(v -> v).doc("The name of an environment variable holding the account's password; or"
                    + " password (not both).").build();
    public static final ConfigKey<Boolean> SHARD_TLS = ConfigKey.define("cdc.shards[i].tls", Boolean.class)
            .defaultValue("false").parser(CdcKeys::parseBoolean).doc("Connect to the shard with TLS.").build();
    public static final ConfigKey<ShardStart> SHARD_START = ConfigKey.define("cdc.shards[i].start", ShardStart.class)
            .defaultValue("earliest")
            .parser(v -> {
                ShardStart start = ShardStart.parse(v);
                if (start == null) {
                    throw new IllegalArgumentException("earliest, current, or <binlog file>:<position> (position 4 or"
                            + " more), e.g. mysql-bin.000042:4");
                }
                return start;
            })
            .doc("Where the reader starts the FIRST time (later it resumes from the global binlog's checkpoint):"
                    + " earliest (the shard's first binlog file, as a new replica would), current (the shard's binlog"
                    + " end at first start), or <file>:<position>, e.g. mysql-bin.000042:4.")
            .build();
    public static final ConfigKey<Long> READER_SERVER_ID_BASE = ConfigKey.define("cdc.reader.server-id-base",
            Long.class).defaultValue("1800000000").parser(CdcKeys::serverId)
            .doc("Base of the readers' default server ids (shard i registers as base + i); high, so it does not meet"
                    + " the small ids replicas usually get. 1 to 4294967295.")
            .build();
    public static final ConfigKey<Long> SHARD_READER_SERVER_ID = ConfigKey.define("cdc.shards[i].reader-server-id",
            Long.class).computedDefault(() -> null, "cdc.reader.server-id-base + i").parser(CdcKeys::serverId)
            .doc("The server id the reader registers with on the shard; it must differ from every other replica of"
                    + " that shard.")
            .build();
    public static final ConfigKey<Boolean> NAMING_STRIP_TRAILING_DIGITS = ConfigKey.define(
            "cdc.naming.strip-trailing-digits", Boolean.class).defaultValue("true").parser(CdcKeys::parseBoolean)
            .doc("Physical database and table names become logical ones in the global binlog (shop_03.orders_0007 ->"
                    + " shop.orders). For each name the first rule of its scope whose pattern matches the WHOLE name"
                    + " decides; without one, a trailing _<digits> is stripped unless this is false; anything else"
                    + " stays.")
            .build();
    public static final ConfigKey<NamingRule.Scope> NAMING_RULE_SCOPE = ConfigKey.define("cdc.naming.rules[i].scope",
            NamingRule.Scope.class).required()
            .parser(v -> switch (v.toLowerCase(Locale.ROOT)) {
                case "database" -> NamingRule.Scope.DATABASE;
                case "table" -> NamingRule.Scope.TABLE;
                default -> throw new IllegalArgumentException(v.isEmpty() ? "database or table is required"
                        : "must be database or table");
            }).formatter(v -> v.name().toLowerCase(Locale.ROOT))
            .doc("database or table: which names the rule renames.").build();
    public static final ConfigKey<Pattern> NAMING_RULE_PATTERN = ConfigKey.define("cdc.naming.rules[i].pattern",
            Pattern.class).required()
            .parser(v -> {
                if (v.isEmpty()) {
                    throw new IllegalArgumentException("a regular expression matching the whole physical name is"
                            + " required (e.g. t_order_\\d{4}_\\d{2})");
                }
                try {
                    return Pattern.compile(v);
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException("not a regular expression: " + e.getDescription() + " near index "
                            + e.getIndex());
                }
            })
            .doc("A Java regular expression matched against the whole physical name.").build();
    public static final ConfigKey<String> NAMING_RULE_REPLACEMENT = ConfigKey.define("cdc.naming.rules[i].replacement",
            String.class).required()
            .parser(nonBlank("the logical name is required ($1 refers to the pattern's first group)"))
            .doc("The logical name; $1, ${name} refer to the pattern's groups. Example: monthly tables t_order_2024_01"
                    + " .. t_order_2026_12 -> t_order (the default would give t_order_2024).")
            .build();
    public static final ConfigKey<Duration> HEARTBEAT_INTERVAL = duration("cdc.heartbeat.interval", "100ms",
            Duration.ofMillis(10), Duration.ofMinutes(1), "How often the heartbeat row is written to every shard"
                    + " while a transaction waits for the shards to move past it (each heartbeat is a cut of the global"
                    + " order, and a shard with nothing to send holds the others back by at most one interval); the"
                    + " first beat comes at once when something starts to wait. 10ms to 1m.");
    public static final ConfigKey<Duration> HEARTBEAT_IDLE_INTERVAL = duration("cdc.heartbeat.idleInterval", "1s",
            Duration.ofMillis(10), Duration.ofMinutes(1), "How often the heartbeat row is written while nothing waits"
                    + " for heartbeats (an idle cluster): only to show every shard alive in the delay metric and the"
                    + " status. Shorter than cdc.heartbeat.interval counts as that interval. 10ms to 1m.");
    public static final ConfigKey<Duration> XA_MAX_WAIT = duration("cdc.xa.maxWait", "60s", Duration.ofSeconds(1),
            Duration.ofDays(1), "How long the committed branches of an XA transaction wait for a branch still prepared"
                    + " before they are written without it (with a warning naming the gtrid and shards). 1s to 1d.");
    public static final ConfigKey<Duration> STATUS_INTERVAL = duration("cdc.status.interval", "10s",
            Duration.ofSeconds(1), Duration.ofDays(1), "Period of the status line in the log. 1s to 1d.");
    public static final ConfigKey<Boolean> RUNTIME_ENABLED = ConfigKey.define("cdc.runtime.enabled", Boolean.class)
            .defaultValue("true").parser(CdcKeys::parseBoolean)
            .doc("Run the pipeline (readers, sorter, merger, global binlog) and the dump server. false: only validate"
                    + " the configuration and serve the admin endpoints (a dry run).")
            .build();
    public static final ConfigKey<Boolean> PREFLIGHT_ENABLED = ConfigKey.define("cdc.preflight.enabled", Boolean.class)
            .defaultValue("true").parser(CdcKeys::parseBoolean)
            .doc("Check every shard's binlog settings and privileges at startup (refuse to start when one is not"
                    + " ready).")
            .build();
    public static final ConfigKey<String> ADMIN_USER = ConfigKey.define("cdc.admin.user", String.class).parser(v -> v)
            .doc("Account for the admin endpoints on the management port (GET /admin/config, PUT /admin/config/{key})."
                    + " Without it the admin endpoints answer 403.")
            .build();
    public static final ConfigKey<String> ADMIN_PASSWORD = ConfigKey.define("cdc.admin.password", String.class)
            .parser(v -> v).doc("Its password, inline; or password-env (not both).").build();
    public static final ConfigKey<String> ADMIN_PASSWORD_ENV = ConfigKey.define("cdc.admin.password-env",
            String.class).parser(v -> v).doc("The name of an environment variable holding its password; or password"
                    + " (not both).").build();
    public static final ConfigKey<String> OVERRIDES_FILE = ConfigKey.define("cdc.overrides.file", String.class)
            .defaultValue("tributary-overrides.properties").parser(v -> v)
            .doc("Where live edits are saved; read over the configuration file at startup, so edits survive a"
                    + " restart.")
            .build();

    /** Every {@code cdc.*} key, in the order of the reference documentation. */
    public static final List<ConfigKey<?>> KEYS = List.of(SHARD_NAME, SHARD_HOST, SHARD_PORT, SHARD_USER,
            SHARD_PASSWORD, SHARD_PASSWORD_ENV, SHARD_TLS, SHARD_START, SHARD_READER_SERVER_ID, READER_SERVER_ID_BASE,
            NAMING_STRIP_TRAILING_DIGITS, NAMING_RULE_SCOPE, NAMING_RULE_PATTERN, NAMING_RULE_REPLACEMENT,
            HEARTBEAT_INTERVAL, HEARTBEAT_IDLE_INTERVAL, XA_MAX_WAIT, STATUS_INTERVAL, RUNTIME_ENABLED,
            PREFLIGHT_ENABLED, ADMIN_USER, ADMIN_PASSWORD, ADMIN_PASSWORD_ENV, OVERRIDES_FILE);

    private CdcKeys() {
    }

    /** {@code cdc.shards[i].name} when unset. */
    static String defaultShardName(int index) {
        return "shard-" + index;
    }

    /** {@code cdc.shards[i].reader-server-id} when unset. */
    static long defaultReaderServerId(long base, int index) {
        return base + index;
    }

    private static ConfigKey<Duration> duration(String name, String dflt, Duration min, Duration max, String doc) {
        return ConfigKey.define(name, Duration.class).defaultValue(dflt)
                .parser(v -> DurationText.parse(v, "100ms, 10s, 5m"))
                .validator(d -> {
                    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                        throw new IllegalArgumentException("must be between " + min + " and " + max);
                    }
                })
                .doc(doc).build();
    }

    private static Function<String, String> nonBlank(String reason) {
        return v -> {
            if (v.isBlank()) {
                throw new IllegalArgumentException(reason);
            }
            return v;
        };
    }

    private static Integer port(String v) {
        try {
            int p = Integer.parseInt(v);
            if (p >= 1 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("a TCP port is 1 to 65535");
    }

    private static Long serverId(String v) {
        try {
            long id = Long.parseLong(v);
            if (id >= 1 && id <= 0xFFFF_FFFFL) {
                return id;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(SERVER_ID_RANGE);
    }

    private static Boolean parseBoolean(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException("must be true or false");
        };
    }
}
