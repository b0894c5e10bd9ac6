package io.tributary.storage.buffer;

import io.tributary.core.config.ByteSize;
import io.tributary.core.config.ConfigKey;
import io.tributary.core.config.ConfigProblems;
import io.tributary.core.config.ConfigurationException;
import io.tributary.storage.memory.MemoryBudget;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The declaration of the {@code storage.*} keys of the transaction buffer (names, types, defaults and
 * meanings exactly as ARCHITECTURE.md, "Spilling"; the daemon's docs/configuration.md is generated from them),
 * and the validation of a whole snapshot of them. The memory limit's default and bound depend on the max heap,
 * so the keys are declared per heap size.
 *
 * <p>{@link #parse} reports every problem, not only the first, as "Invalid value V for configuration K:
 * reason". Immutable and thread-safe.
 */
public final class PersistConfig {

    public static final String IS_PERSIST_ON = "storage.isPersistOn";
    public static final String MODE = "storage.persist.mode";
    public static final String NEW_THRESHOLD = "storage.persistNewThreshold";
    public static final String ALL_THRESHOLD = "storage.persistAllThreshold";
    public static final String TXN_THRESHOLD = "storage.txnPersistThreshold";
    public static final String MEMORY_LIMIT = "storage.memoryLimit";
    public static final String PATH = "storage.path";

    private final long maxHeapBytes;
    private final Map<String, ConfigKey<?>> keys = new LinkedHashMap<>();

    /** The keys for a JVM whose max heap is {@code maxHeapBytes} (the memory limit's default and bound). */
    public PersistConfig(long maxHeapBytes) {
        if (maxHeapBytes <= 0) {
            throw new IllegalArgumentException("max heap must be positive, got " + maxHeapBytes);
        }
        this.maxHeapBytes = maxHeapBytes;
        declare(ConfigKey.define(IS_PERSIST_ON, Boolean.class).defaultValue("true").parser(PersistConfig::parseBoolean)
                .doc("May anything spill to disk at all. Off: a transaction that does not fit the memory limit fails.")
                .liveEditable().build());
        declare(ConfigKey.define(MODE, PersistMode.class).defaultValue("AUTO").parser(PersistConfig::parseMode)
                .doc("AUTO: memory first, disk under pressure; FORCE: every buffered transaction goes to disk.")
                .liveEditable().build());
        declare(ConfigKey.define(NEW_THRESHOLD, Double.class).defaultValue("0.85").parser(PersistConfig::parseShare)
                .validator(PersistConfig::checkShare)
                .doc("In AUTO, once buffer memory use passes this share of the budget, NEW data goes to disk. (0, 1];"
                        + " at most " + ALL_THRESHOLD + ".")
                .liveEditable().build());
        declare(ConfigKey.define(ALL_THRESHOLD, Double.class).defaultValue("0.95").parser(PersistConfig::parseShare)
                .validator(PersistConfig::checkShare)
                .doc("Once buffer memory use passes this share of the budget, data already in memory moves to disk"
                        + " too. (0, 1]")
                .liveEditable().build());
        declare(ConfigKey.define(TXN_THRESHOLD, Long.class).defaultValue("100MB").parser(ByteSize::parse)
                .validator(PersistConfig::checkPositive)
                .doc("In AUTO, a single transaction larger than this spills at once, whatever the memory use.")
                .liveEditable().build());
        declare(ConfigKey.define(MEMORY_LIMIT, Long.class)
                .computedDefault(() -> ByteSize.format(MemoryBudget.defaultTransactionBuffer(maxHeapBytes)), "25% of the max heap")
                .parser(ByteSize::parse).validator(this::checkMemoryLimit)
                .doc("The buffer's memory budget: its own byte accounting, not the heap gauge. At most the max heap.")
                .liveEditable().build());
        declare(ConfigKey.define(PATH, Path.class).defaultValue("data/spill").parser(PersistConfig::parsePath)
                .doc("Directory of the RocksDB spill store; wiped at start. Takes effect at start only.").build());
    }

    /** The keys for this JVM. */
    public static PersistConfig forThisJvm() {
        return new PersistConfig(Runtime.getRuntime().maxMemory());
    }

    /** Every key, in declaration order. */
    public List<ConfigKey<?>> keys() {
        return List.copyOf(keys.values());
    }

    public ConfigKey<?> key(String name) {
        return keys.get(name);
    }

    /** Reference documentation generated from the declarations: a Markdown table of key, default, meaning. */
    public String referenceTable() {
        StringBuilder sb = new StringBuilder("| key | default | meaning |\n|---|---|---|\n");
        for (ConfigKey<?> k : keys.values()) {
            sb.append("| `").append(k.name()).append("` | ").append(k.defaultValue().get()).append(" | ").append(k.doc())
                    .append(k.liveEditable() ? "" : " (not editable at runtime)").append(" |\n");
        }
        return sb.toString();
    }

    /** The defaults in configuration syntax. */
    public Map<String, String> defaults() {
        Map<String, String> m = new LinkedHashMap<>();
        keys.values().forEach(k -> m.put(k.name(), k.defaultValue().get()));
        return m;
    }

    /** The settings with every key at its default. */
    public PersistSettings defaultSettings() {
        return parse(Map.of());
    }

    /**
     * Validates a whole snapshot: the given keys over the defaults. Unknown keys, bad values and
     * inconsistent combinations are all reported.
     *
     * @throws ConfigurationException listing every problem
     */
    public PersistSettings parse(Map<String, String> values) {
        ConfigProblems problems = new ConfigProblems();
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (!keys.containsKey(e.getKey())) {
                problems.add(e.getKey(), e.getValue(), "unknown key (known: " + String.join(", ", keys.keySet()) + ")");
            }
        }
        Map<String, Object> parsed = new LinkedHashMap<>();
        for (ConfigKey<?> k : keys.values()) {
            String text = values.containsKey(k.name()) ? values.get(k.name()) : k.defaultValue().get();
            try {
                parsed.put(k.name(), k.parse(text));
            } catch (ConfigurationException ex) {
                problems.addAll(ex);
            }
        }
        if (parsed.get(NEW_THRESHOLD) instanceof Double n && parsed.get(ALL_THRESHOLD) instanceof Double a && n > a) {
            problems.add(NEW_THRESHOLD, textOf(values, NEW_THRESHOLD), "must not exceed " + ALL_THRESHOLD + " (" + a
                    + "): new data would stay in memory while buffered data is already moved to disk");
        }
        problems.throwIfAny();
        return new PersistSettings((Boolean) parsed.get(IS_PERSIST_ON), (PersistMode) parsed.get(MODE),
                (Double) parsed.get(NEW_THRESHOLD), (Double) parsed.get(ALL_THRESHOLD), (Long) parsed.get(TXN_THRESHOLD),
                (Long) parsed.get(MEMORY_LIMIT), (Path) parsed.get(PATH));
    }

    /** The settings in configuration syntax, so a snapshot can be persisted and edited. */
    public static Map<String, String> toValues(PersistSettings s) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(IS_PERSIST_ON, Boolean.toString(s.persistOn()));
        m.put(MODE, s.mode().name());
        m.put(NEW_THRESHOLD, Double.toString(s.newThreshold()));
        m.put(ALL_THRESHOLD, Double.toString(s.allThreshold()));
        m.put(TXN_THRESHOLD, ByteSize.format(s.txnThresholdBytes()));
        m.put(MEMORY_LIMIT, ByteSize.format(s.memoryLimitBytes()));
        m.put(PATH, s.path().toString());
        return m;
    }

    private String textOf(Map<String, String> values, String key) {
        return values.containsKey(key) ? values.get(key) : keys.get(key).defaultValue().get();
    }

    private void declare(ConfigKey<?> key) {
        keys.put(key.name(), key);
    }

    private static Boolean parseBoolean(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException("expected true or false");
        };
    }

    private static PersistMode parseMode(String s) {
        try {
            return PersistMode.valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected AUTO or FORCE");
        }
    }

    private static Double parseShare(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number (expected a share of the memory limit, e.g. 0.85)");
        }
    }

    private static void checkShare(Double d) {
        if (!(d > 0 && d <= 1)) {
            throw new IllegalArgumentException("must be above 0 and at most 1 (a share of the memory limit)");
        }
    }

    private static void checkPositive(Long n) {
        if (n <= 0) {
            throw new IllegalArgumentException("must be positive");
        }
    }

    private void checkMemoryLimit(Long n) {
        checkPositive(n);
        if (n > maxHeapBytes) {
            throw new IllegalArgumentException("exceeds the JVM's max heap (" + ByteSize.format(maxHeapBytes)
                    + "): the budget would not protect against an out-of-memory error");
        }
    }

    private static Path parsePath(String s) {
        if (s.isEmpty()) {
            throw new IllegalArgumentException("a directory is required");
        }
        try {
            return Path.of(s);
        } catch (java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException("not a path: " + e.getReason());
        }
    }
}
