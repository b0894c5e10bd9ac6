package io.tributary.daemon.config;

import io.tributary.core.config.ConfigKey;
import io.tributary.core.config.ConfigProblem;
import io.tributary.core.config.ConfigProblems;
import io.tributary.core.config.ConfigurationException;
import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.naming.LogicalNames;
import io.tributary.core.naming.NamingRule;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.storage.binlog.BinlogConfig;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.PersistSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
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
 * <p>Every key is declared once, with its default and validator, by its owner; {@link ConfigCatalogue} lists them
 * by section, and this class reads the sections in turn: the daemon's own {@code cdc.*} keys ({@link CdcKeys}),
 * {@code storage.*} ({@link PersistConfig}), {@code binlog.*} ({@link BinlogConfig}) and {@code dump.*}
 * ({@link DumpServerConfig}).
 */
public final class TributaryConfigLoader {

    private static final int MAX_SHARDS = 1024;
    /** Default base of the readers' server ids: high, so it does not meet the small ids replicas usually get. */
    public static final long DEFAULT_READER_SERVER_ID_BASE = CdcKeys.READER_SERVER_ID_BASE.parse(
            CdcKeys.READER_SERVER_ID_BASE.defaultText());
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

    /** @throws ConfigurationException listing every problem found */
    public TributaryConfig load() {
        return load(null);
    }

    /**
     * Reads the configuration and runs {@code shardCheck} on every shard whose own keys were accepted, so that a
     * refusal lists the configuration's problems and each shard's in one pass (not the shards' at the next start).
     *
     * @param shardCheck what a shard must meet (the preflight); null skips it
     * @throws ConfigurationException listing every problem found
     */
    public TributaryConfig load(ShardCheck shardCheck) {
        PersistConfig persistKeys = PersistConfig.forThisJvm();
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        for (ConfigCatalogue.Section section : ConfigCatalogue.sections(persistKeys)) {
            sections.put(section.prefix(), withPrefix(section.prefix()));
        }
        ConfigProblems problems = new ConfigProblems();
        List<ShardConfig> complete = new ArrayList<>();
        List<ShardConfig> shards = shards(problems, complete);
        Duration heartbeat = read(CdcKeys.HEARTBEAT_INTERVAL, problems);
        Duration heartbeatIdle = read(CdcKeys.HEARTBEAT_IDLE_INTERVAL, problems);
        Duration xaMaxWait = read(CdcKeys.XA_MAX_WAIT, problems);
        Duration status = read(CdcKeys.STATUS_INTERVAL, problems);
        LogicalNames naming = naming(sections.get("cdc."), problems);
        PersistSettings persist = null;
        try {
            persist = persistKeys.parse(sections.get("storage."));
        } catch (ConfigurationException e) {
            problems.addAll(e);
        }
        BinlogConfig binlog = null;
        try {
            Map<String, String> b = new LinkedHashMap<>(sections.get("binlog."));
            b.putIfAbsent(ConfigCatalogue.BINLOG_DIR.name(), ConfigCatalogue.BINLOG_DIR.defaultText());
            binlog = BinlogConfig.parse(b);
        } catch (ConfigurationException e) {
            problems.addAll(e);
        }
        DumpServerConfig dump = null;
        try {
            // the dump server looks like the server the binlog is written for; when binlog.* is refused the
            // dump keys are still checked, so that every problem is reported at once
            dump = DumpServerConfig.parse(sections.get("dump."), binlog == null ? BinlogFlavor.MYSQL : binlog.flavor(),
                    binlog == null ? 1 : binlog.serverId(), environmentVariables);
        } catch (ConfigurationException e) {
            problems.addAll(e);
        }
        if (shardCheck != null) {
            for (ShardConfig shard : complete) {
                for (String unmet : shardCheck.problems(shard)) {
                    problems.add(ConfigProblem.unmet("cdc.shards[" + shard.index() + "]", unmet));
                }
            }
        }
        problems.throwIfAny();
        return new TributaryConfig(shards, heartbeat, heartbeatIdle, xaMaxWait, status, persist, binlog, naming, dump);
    }

    private LogicalNames naming(Map<String, String> cdcKeys, ConfigProblems problems) {
        Boolean strip = read(CdcKeys.NAMING_STRIP_TRAILING_DIGITS, problems);
        List<NamingRule> rules = new ArrayList<>();
        int count = 0;
        for (int i = 0; i < MAX_SHARDS; i++) {
            if (!containsPrefix("cdc.naming.rules[" + i + "].")) {
                break;
            }
            count++;
            NamingRule.Scope scope = required(CdcKeys.NAMING_RULE_SCOPE, i, problems);
            // a pattern is taken as written: blanks may be part of it
            String patternKey = CdcKeys.NAMING_RULE_PATTERN.name(i);
            String pattern = env.getProperty(patternKey);
            Pattern compiled = null;
            try {
                compiled = CdcKeys.NAMING_RULE_PATTERN.parser().apply(pattern == null ? "" : pattern);
            } catch (IllegalArgumentException e) {
                problems.add(patternKey, pattern, e.getMessage());
            }
            String replacementKey = CdcKeys.NAMING_RULE_REPLACEMENT.name(i);
            String replacement = required(CdcKeys.NAMING_RULE_REPLACEMENT, i, problems);
            if (replacement != null && compiled != null) {
                // a reference to a group the pattern lacks fails only when a name matches: check it now
                int groups = compiled.matcher("").groupCount();
                Matcher refs = Pattern.compile("(?<!\\\\)\\$(\\d+)").matcher(env.getProperty(replacementKey));
                while (refs.find()) {
                    if (Integer.parseInt(refs.group(1)) > groups) {
                        problems.add(replacementKey, env.getProperty(replacementKey), "refers to group $" + refs.group(1)
                                + " but the pattern has " + groups + " group(s)");
                        replacement = null;
                        break;
                    }
                }
            }
            if (scope != null && compiled != null && replacement != null) {
                rules.add(new NamingRule(scope, compiled, replacement));
            }
        }
        for (Map.Entry<String, String> e : cdcKeys.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("cdc.naming.")) {
                continue;
            }
            Matcher m = NAMING_RULE_KEY.matcher(key);
            boolean known = key.equals(CdcKeys.NAMING_STRIP_TRAILING_DIGITS.name())
                    || (m.matches() && Integer.parseInt(m.group(1)) < count);
            if (!known) {
                problems.add(key, e.getValue(), m.matches()
                        ? "rules are numbered from 0 without gaps; this one is not reached"
                        : "unknown key (known: cdc.naming.strip-trailing-digits, cdc.naming.rules[i].scope,"
                                + " .pattern, .replacement)");
            }
        }
        return new LogicalNames(rules, strip == null || strip);
    }

    /** Every configured shard; those whose own keys were all accepted also go to {@code complete}. */
    private List<ShardConfig> shards(ConfigProblems problems, List<ShardConfig> complete) {
        List<ShardConfig> shards = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Long base = read(CdcKeys.READER_SERVER_ID_BASE, problems);
        long idBase = base == null ? 1 : base;
        for (int i = 0; i < MAX_SHARDS; i++) {
            if (!containsPrefix("cdc.shards[" + i + "].")) {
                break;
            }
            int problemsBefore = problems.list().size();
            String nameKey = CdcKeys.SHARD_NAME.name(i);
            String name = env.getProperty(nameKey);
            name = problems.read(CdcKeys.SHARD_NAME, nameKey, name != null ? name : CdcKeys.defaultShardName(i), true);
            if (name != null && !names.add(name)) {
                problems.add(nameKey, name, "another shard already has this name");
            }
            String host = required(CdcKeys.SHARD_HOST, i, problems);
            Integer port = read(CdcKeys.SHARD_PORT, i, problems);
            String user = required(CdcKeys.SHARD_USER, i, problems);
            String passwordKey = CdcKeys.SHARD_PASSWORD.name(i);
            String envKey = CdcKeys.SHARD_PASSWORD_ENV.name(i);
            String password = env.getProperty(passwordKey);
            String passwordEnv = env.getProperty(envKey);
            if (password != null && passwordEnv != null) {
                problems.add(envKey, passwordEnv, "give either password or password-env, not both");
            } else if (passwordEnv != null) {
                password = environmentVariables.apply(passwordEnv);
                if (password == null) {
                    problems.add(envKey, passwordEnv, "the environment variable " + passwordEnv + " is not set");
                }
            } else if (password == null) {
                problems.add(passwordKey, null, "a password (or password-env naming an environment variable) is required");
            }
            Boolean tls = read(CdcKeys.SHARD_TLS, i, problems);
            ShardStart start = read(CdcKeys.SHARD_START, i, problems);
            String readerIdKey = CdcKeys.SHARD_READER_SERVER_ID.name(i);
            String readerIdText = env.getProperty(readerIdKey);
            Long readerId = problems.read(CdcKeys.SHARD_READER_SERVER_ID, readerIdKey, readerIdText != null
                    ? readerIdText : String.valueOf(CdcKeys.defaultReaderServerId(idBase, i)), true);
            // a refused value leaves a placeholder: the problems are thrown before the shard is used
            ShardConfig shard = new ShardConfig(i, name, host, port == null ? 0 : port, user, password,
                    Boolean.TRUE.equals(tls), start == null ? ShardStart.EARLIEST : start, readerId == null ? 1 : readerId);
            shards.add(shard);
            if (problems.list().size() == problemsBefore) {
                complete.add(shard);
            }
        }
        if (shards.isEmpty()) {
            problems.add("cdc.shards", "(none)", "at least one shard is required: cdc.shards[0].host, .port, .user,"
                    + " .password");
        }
        return shards;
    }

    /** A key that is not a list key: its value (stripped) or default, converted and validated; null if refused. */
    private <T> T read(ConfigKey<T> key, ConfigProblems problems) {
        String text = env.getProperty(key.name());
        return problems.read(key, key.name(), text == null ? null : text.strip(), true);
    }

    /** List entry {@code index} of {@code key}: its value or default, converted and validated; null if refused. */
    private <T> T read(ConfigKey<T> key, int index, ConfigProblems problems) {
        return problems.read(key, key.name(index), env.getProperty(key.name(index)), true);
    }

    /** A required list key: absent or blank is refused with the declaration's reason; null if refused. */
    private <T> T required(ConfigKey<T> key, int index, ConfigProblems problems) {
        String name = key.name(index);
        String text = env.getProperty(name);
        try {
            return key.convert(text == null ? "" : text);
        } catch (IllegalArgumentException e) {
            problems.add(name, text, e.getMessage());
            return null;
        }
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
