package io.tributary.daemon.admin;

import io.tributary.core.config.ConfigurationException;
import io.tributary.daemon.dump.LiveVariables;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.PersistSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys a running daemon lets users change (the {@code storage.*} persist keys), the edits to them,
 * and the overrides file that makes an edit survive a restart.
 *
 * <p>An edit is validated together with every other current value (a new threshold above the all
 * threshold is refused even when each is in range), applied atomically, logged with old and new value,
 * and then written to the overrides file (temp file, fsync, atomic rename), which startup reads over
 * the configuration file. A refused edit changes nothing.
 *
 * <p>The same keys are shown and edited over SQL on the dump port ({@link LiveVariables}: {@code SHOW VARIABLES
 * LIKE 'storage%'}, {@code SET GLOBAL storage.persist.mode = 'FORCE'} by admin accounts); pass this object to
 * the {@code DumpServer}.
 *
 * <p>Thread-safe: edits are serialized.
 */
public final class LiveConfig implements LiveVariables {

    private static final Logger log = LoggerFactory.getLogger(LiveConfig.class);

    private final PersistConfig keys;
    private final LivePersistSettings persist;
    private final Path overridesFile;

    public LiveConfig(PersistConfig keys, PersistSettings initial, Path overridesFile) {
        this.keys = keys;
        this.persist = new LivePersistSettings(keys, PersistConfig.toValues(initial));
        this.overridesFile = overridesFile;
    }

    /** The live settings, which the transaction buffer follows. */
    public LivePersistSettings persist() {
        return persist;
    }

    /** Every key that can change while the daemon runs, with its current value. */
    @Override
    public Map<String, String> values() {
        Map<String, String> editable = new TreeMap<>();
        persist.values().forEach((k, v) -> {
            if (keys.key(k).liveEditable()) {
                editable.put(k, v);
            }
        });
        return editable;
    }

    /**
     * Changes one key.
     *
     * @return the previous value
     * @throws ConfigurationException naming the key, the value and what is allowed; nothing changed
     */
    public synchronized String edit(String key, String value) {
        if (keys.key(key) == null) {
            throw ConfigurationException.invalid(key, value, "unknown key or not editable while running (editable: "
                    + String.join(", ", values().keySet()) + ")");
        }
        String old = persist.values().get(key);
        persist.apply(Map.of(key, value.strip()));
        writeOverride(key);
        log.info("configuration edit: {} changed from {} to {} (saved in {})", key, old, persist.values().get(key),
                overridesFile);
        return old;
    }

    /** {@link #edit}, for {@code SET GLOBAL} on the dump port. */
    @Override
    public String set(String key, String value) {
        return edit(key, value);
    }

    /**
     * Saves the edited key (only it: a key never edited keeps following the configuration file, e.g. a
     * memory limit derived from the heap).
     */
    private void writeOverride(String key) {
        Map<String, String> existing = new LinkedHashMap<>(readOverrides(overridesFile));
        existing.put(key, persist.values().get(key));
        StringBuilder text = new StringBuilder("# Edits made while Tributary ran (PUT /admin/config or SET GLOBAL);\n"
                + "# read over the configuration file at startup. Delete a line to fall back to the file.\n");
        existing.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        try {
            Path dir = overridesFile.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = dir.resolve(overridesFile.getFileName() + ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                c.force(true);
            }
            Files.move(tmp, overridesFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the overrides file " + overridesFile + ": " + e.getMessage(), e);
        }
    }

    /** The overrides file's key=value lines, empty when there is no file. */
    public static Map<String, String> readOverrides(Path file) {
        Map<String, String> values = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return values;
        }
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String l = line.strip();
                int eq = l.indexOf('=');
                if (l.isEmpty() || l.startsWith("#") || eq <= 0) {
                    continue;
                }
                values.put(l.substring(0, eq).strip(), l.substring(eq + 1).strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the overrides file " + file + ": " + e.getMessage(), e);
        }
        return values;
    }
}
