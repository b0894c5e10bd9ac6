package io.tributary.daemon.config;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.naming.NamingRule;
import io.tributary.daemon.dump.DumpConfigException;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.binlog.BinlogConfigException;
import io.tributary.storage.buffer.DurationText;
import io.tributary.storage.buffer.InvalidConfigurationException;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.PersistSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;

/**
 * Reads and validates the daemon's configuration from the Spring {@code Environment}, reporting every
 * problem at once (not just the first), each as {@code Invalid value V for configuration K: reason}.
 *
 * <p>The {@code storage.*} and {@code binlog.*} keys are declared, with defaults and validators, where
 * they are used ({@link PersistConfig}, {@link BinlogConfig}); this class only gathers them and adds the
 * daemon's own keys: {@code cdc.shards[i].*}, {@code cdc.heartbeat.interval}, {@code cdc.xa.maxWait},
 * {@code cdc.status.interval}, and the naming rules {@code cdc.naming.strip-trailing-digits} (default true) and
 * {@code cdc.naming.rules[i].scope} ({@code database} or {@code table}), {@code .pattern} (a regular expression
 * matched against the whole physical name), {@code .replacement} (the logical name, {@code $1} group
 * references allowed). The {@code dump.*} keys are declared in {@link DumpServerConfig}.
 */
public final class TributaryConfigLoader {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final int MAX_SHARDS = 1024;
    /** Default base of the readers' server ids: high, so it does not meet the small ids replicas usually get. */
    public static final long DEFAULT_READER_SERVER_ID_BASE = 1_800_000_000L;
    private static final Pattern NAMING_RULE_KEY = Pattern.compile("cdc\\.naming\\.rules\\[(\\d+)]\\.(scope|pattern|replacement)");

    private final ConfigurableEnvironment env;
    private final Function<String, String> environmentVariables;

    public TributaryConfigLoader(ConfigurableEnvironment env) {
        this(env, System::getenv);
    }

    TributaryConfigLoader(ConfigurableEnvironment env, Function<String, String> environmentVariables) {
        this.env = env;
        this.environmentVariables = environmentVariables;
    }

    /** @throws TributaryConfigException listing every problem found */
    public TributaryConfig load() {
        List<String> problems = new ArrayList<>();
        List<ShardConfig> shards = shards(problems);
        Duration heartbeat = duration("cdc.heartbeat.interval", "100ms", Duration.ofMillis(10), Duration.ofMinutes(1), problems);
        Duration xaMaxWait = duration("cdc.xa.maxWait", "60s", Duration.ofSeconds(1), Duration.ofDays(1), problems);
        Duration status = duration("cdc.status.interval", "10s", Duration.ofSeconds(1), Duration.ofDays(1), problems);
        LogicalNames naming = naming(problems);
        PersistSettings persist = null;
        try {
            persist = PersistConfig.forThisJvm().parse(withPrefix("storage."));
        } catch (InvalidConfigurationException e) {
            problems.addAll(e.problems());
        }
        BinlogConfig binlog = null;
        try {
            Map<String, String> b = withPrefix("binlog.");
            b.putIfAbsent("binlog.dir", "data/binlog");
            binlog = BinlogConfig.parse(b);
        } catch (BinlogConfigException e) {
            problems.addAll(e.problems());
        }
        DumpServerConfig dump = null;
        try {
            // the dump server looks like the server the binlog is written for; when binlog.* is refused the
            // dump keys are still checked, so that every problem is reported at once
            dump = DumpServerConfig.parse(withPrefix("dump."), binlog == null ? BinlogFlavor.MYSQL : binlog.flavor(),
                    binlog == null ? 1 : binlog.serverId(), environmentVariables);
        } catch (DumpConfigException e) {
            problems.addAll(e.problems());
        }
        if (!problems.isEmpty()) {
            throw new TributaryConfigException(problems);
        }
        return new TributaryConfig(shards, heartbeat, xaMaxWait, status, persist, binlog, naming, dump);
    }

    private LogicalNames naming(List<String> problems) {
        String strip = env.getProperty("cdc.naming.strip-trailing-digits", "true").strip();
        if (!strip.equalsIgnoreCase("true") && !strip.equalsIgnoreCase("false")) {
            problems.add(TributaryConfigException.message("cdc.naming.strip-trailing-digits", strip,
                    "must be true or false"));
        }
        List<NamingRule> rules = new ArrayList<>();
        int count = 0;
        for (int i = 0; i < MAX_SHARDS; i++) {
            String p = "cdc.naming.rules[" + i + "].";
            if (!containsPrefix(p)) {
                break;
            }
            count++;
            String scopeText = env.getProperty(p + "scope");
            NamingRule.Scope scope = null;
            if (scopeText == null || scopeText.isBlank()) {
                problems.add(TributaryConfigException.message(p + "scope", scopeText, "database or table is required"));
            } else {
                switch (scopeText.strip().toLowerCase(Locale.ROOT)) {
                    case "database" -> scope = NamingRule.Scope.DATABASE;
                    case "table" -> scope = NamingRule.Scope.TABLE;
                    default -> problems.add(TributaryConfigException.message(p + "scope", scopeText,
                            "must be database or table"));
                }
            }
            String pattern = env.getProperty(p + "pattern");
            Pattern compiled = null;
            if (pattern == null || pattern.isEmpty()) {
                problems.add(TributaryConfigException.message(p + "pattern", pattern,
                        "a regular expression matching the whole physical name is required (e.g. t_order_\\d{4}_\\d{2})"));
            } else {
                try {
                    compiled = Pattern.compile(pattern);
                } catch (java.util.regex.PatternSyntaxException e) {
                    problems.add(TributaryConfigException.message(p + "pattern", pattern,
                            "not a regular expression: " + e.getDescription() + " near index " + e.getIndex()));
                }
            }
            String replacement = env.getProperty(p + "replacement");
            if (replacement == null || replacement.isBlank()) {
                problems.add(TributaryConfigException.message(p + "replacement", replacement,
                        "the logical name is required ($1 refers to the pattern's first group)"));
            } else if (compiled != null) {
                try {
                    // a reference to a group the pattern lacks fails only when a name matches: check it now
                    int groups = compiled.matcher("").groupCount();
                    Matcher refs = Pattern.compile("(?<!\\\\)\\$(\\d+)").matcher(replacement);
                    while (refs.find()) {
                        if (Integer.parseInt(refs.group(1)) > groups) {
                            throw new IllegalArgumentException("refers to group $" + refs.group(1) + " but the pattern"
                                    + " has " + groups + " group(s)");
                        }
                    }
                } catch (IllegalArgumentException e) {
                    problems.add(TributaryConfigException.message(p + "replacement", replacement, e.getMessage()));
                }
            }
            if (scope != null && compiled != null && replacement != null && !replacement.isBlank()) {
                rules.add(new NamingRule(scope, compiled, replacement.strip()));
            }
        }
        for (String key : withPrefix("cdc.naming.").keySet()) {
            Matcher m = NAMING_RULE_KEY.matcher(key);
            boolean known = key.equals("cdc.naming.strip-trailing-digits")
                    || (m.matches() && Integer.parseInt(m.group(1)) < count);
            if (!known) {
                problems.add(TributaryConfigException.message(key, env.getProperty(key), m.matches()
                        ? "rules are numbered from 0 without gaps; this one is not reached"
                        : "unknown key (known: cdc.naming.strip-trailing-digits, cdc.naming.rules[i].scope,"
                                + " .pattern, .replacement)"));
            }
        }
        return new LogicalNames(rules, !strip.equalsIgnoreCase("false"));
    }

    private List<ShardConfig> shards(List<String> problems) {
        List<ShardConfig> shards = new ArrayList<>();
        Set<String> names = new HashSet<>();
        long idBase = serverId("cdc.reader.server-id-base", env.getProperty("cdc.reader.server-id-base",
                String.valueOf(DEFAULT_READER_SERVER_ID_BASE)), problems);
        for (int i = 0; i < MAX_SHARDS; i++) {
            String p = "cdc.shards[" + i + "].";
            if (!containsPrefix(p)) {
                break;
            }
            String name = env.getProperty(p + "name", "shard-" + i);
            if (!NAME.matcher(name).matches()) {
                problems.add(TributaryConfigException.message(p + "name", name,
                        "1 to 64 letters, digits, '_', '-' or '.'"));
            } else if (!names.add(name)) {
                problems.add(TributaryConfigException.message(p + "name", name, "another shard already has this name"));
            }
            String host = env.getProperty(p + "host");
            if (host == null || host.isBlank()) {
                problems.add(TributaryConfigException.message(p + "host", host, "a host name or address is required"));
            }
            int port = port(p + "port", env.getProperty(p + "port", "3306"), problems);
            String user = env.getProperty(p + "user");
            if (user == null || user.isBlank()) {
                problems.add(TributaryConfigException.message(p + "user", user, "the replication account is required"));
            }
            String password = env.getProperty(p + "password");
            String passwordEnv = env.getProperty(p + "password-env");
            if (password != null && passwordEnv != null) {
                problems.add(TributaryConfigException.message(p + "password-env", passwordEnv,
                        "give either password or password-env, not both"));
            } else if (passwordEnv != null) {
                password = environmentVariables.apply(passwordEnv);
                if (password == null) {
                    problems.add(TributaryConfigException.message(p + "password-env", passwordEnv,
                            "the environment variable " + passwordEnv + " is not set"));
                }
            } else if (password == null) {
                problems.add(TributaryConfigException.message(p + "password", null,
                        "a password (or password-env naming an environment variable) is required"));
            }
            String tls = env.getProperty(p + "tls", "false");
            if (!tls.equalsIgnoreCase("true") && !tls.equalsIgnoreCase("false")) {
                problems.add(TributaryConfigException.message(p + "tls", tls, "must be true or false"));
            }
            String startText = env.getProperty(p + "start", "earliest");
            ShardStart start = ShardStart.parse(startText);
            if (start == null) {
                problems.add(TributaryConfigException.message(p + "start", startText,
                        "earliest, current, or <binlog file>:<position> (position 4 or more), e.g. mysql-bin.000042:4"));
                start = ShardStart.EARLIEST;
            }
            long readerId = serverId(p + "reader-server-id", env.getProperty(p + "reader-server-id",
                    String.valueOf(idBase + i)), problems);
            shards.add(new ShardConfig(i, name, host, port, user, password, tls.equalsIgnoreCase("true"), start,
                    readerId));
        }
        if (shards.isEmpty()) {
            problems.add(TributaryConfigException.message("cdc.shards", "(none)",
                    "at least one shard is required: cdc.shards[0].host, .port, .user, .password"));
        }
        return shards;
    }

    private Duration duration(String key, String dflt, Duration min, Duration max, List<String> problems) {
        String v = env.getProperty(key, dflt).strip();
        Duration d;
        try {
            d = DurationText.parse(v, "100ms, 10s, 5m");
        } catch (IllegalArgumentException e) {
            problems.add(TributaryConfigException.message(key, v, e.getMessage()));
            return Duration.ZERO;
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            problems.add(TributaryConfigException.message(key, v, "must be between " + min + " and " + max));
        }
        return d;
    }


    private static int port(String key, String v, List<String> problems) {
        try {
            int p = Integer.parseInt(v.strip());
            if (p >= 1 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problems.add(TributaryConfigException.message(key, v, "a TCP port is 1 to 65535"));
        return 0;
    }

    private static long serverId(String key, String v, List<String> problems) {
        try {
            long id = Long.parseLong(v.strip());
            if (id >= 1 && id <= 0xFFFF_FFFFL) {
                return id;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problems.add(TributaryConfigException.message(key, v,
                "a server id is 1 to 4294967295 and must differ from every other replica of the shard"));
        return 1;
    }

    private boolean containsPrefix(String prefix) {
        for (PropertySource<?> source : env.getPropertySources()) {
            if (source instanceof EnumerablePropertySource<?> e) {
                for (String name : e.getPropertyNames()) {
                    if (name.startsWith(prefix)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Every property whose name starts with {@code prefix}, with its resolved value. */
    private Map<String, String> withPrefix(String prefix) {
        Map<String, String> values = new LinkedHashMap<>();
        for (PropertySource<?> source : env.getPropertySources()) {
            if (source instanceof EnumerablePropertySource<?> e) {
                for (String name : e.getPropertyNames()) {
                    if (name.startsWith(prefix) && !values.containsKey(name)) {
                        values.put(name, env.getProperty(name));
                    }
                }
            }
        }
        return values;
    }
}
