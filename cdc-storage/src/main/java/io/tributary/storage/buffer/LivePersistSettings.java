package io.tributary.storage.buffer;

import io.tributary.core.config.ConfigKey;
import io.tributary.core.config.ConfigProblems;
import io.tributary.core.config.ConfigurationException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The current {@code storage.*} snapshot of a running process, editable without a restart: an edit is
 * merged over the current values, the WHOLE resulting snapshot is validated, and only then swapped in
 * atomically and announced to the listeners (the transaction buffer). A refused edit changes nothing. Values are
 * kept in their canonical form ({@link ConfigKey#canonical}: {@code force} is stored and shown as {@code FORCE}).
 *
 * <p>Thread-safe: edits are serialised; {@link #current()} is a volatile read. Listeners run on the
 * editing thread, after the swap, in registration order.
 */
public final class LivePersistSettings {

    private final PersistConfig config;
    private final List<Consumer<PersistSettings>> listeners = new CopyOnWriteArrayList<>();
    private volatile Snapshot snapshot;

    private record Snapshot(Map<String, String> values, PersistSettings settings) {
    }

    /**
     * @param initial the configured values (over the defaults); validated here
     * @throws ConfigurationException when they are refused
     */
    public LivePersistSettings(PersistConfig config, Map<String, String> initial) {
        this.config = Objects.requireNonNull(config, "config");
        Map<String, String> values = new LinkedHashMap<>(config.defaults());
        values.putAll(initial);
        PersistSettings settings = config.parse(values);
        this.snapshot = new Snapshot(Collections.unmodifiableMap(values), settings);
    }

    public PersistSettings current() {
        return snapshot.settings();
    }

    /** The current values in configuration syntax (what a restart must read back). */
    public Map<String, String> values() {
        return snapshot.values();
    }

    public void addListener(Consumer<PersistSettings> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(Consumer<PersistSettings> listener) {
        listeners.remove(listener);
    }

    /** The text as the key writes it ({@code force} as {@code FORCE}); as given when refused (reported below). */
    private String canonical(String name, String text) {
        ConfigKey<?> key = config.key(name);
        if (key == null || text == null) {
            return text;
        }
        try {
            return key.canonical(text);
        } catch (ConfigurationException e) {
            return text;
        }
    }

    /**
     * Applies {@code edits} (key to new value) as one change.
     *
     * @return the new settings
     * @throws ConfigurationException listing every problem; the current settings stay
     */
    public synchronized PersistSettings apply(Map<String, String> edits) {
        Snapshot old = snapshot;
        ConfigProblems problems = new ConfigProblems();
        for (Map.Entry<String, String> e : edits.entrySet()) {
            ConfigKey<?> key = config.key(e.getKey());
            if (key != null && !key.liveEditable() && !Objects.equals(e.getValue(), old.values().get(e.getKey()))) {
                problems.add(e.getKey(), e.getValue(),
                        "takes effect at start only; change it in the configuration file and restart");
            }
        }
        Map<String, String> merged = new LinkedHashMap<>(old.values());
        edits.forEach((name, text) -> merged.put(name, canonical(name, text)));
        PersistSettings next = null;
        try {
            next = config.parse(merged);
        } catch (ConfigurationException ex) {
            problems.addAll(ex);
        }
        problems.throwIfAny();
        snapshot = new Snapshot(Collections.unmodifiableMap(merged), next);
        for (Consumer<PersistSettings> l : listeners) {
            l.accept(next);
        }
        return next;
    }
}
