package io.tributary.storage.buffer;

import java.util.List;

/**
 * A configuration snapshot was refused. Carries every problem found, each worded
 * {@code Invalid value V for configuration K: reason}; nothing was changed.
 */
public final class InvalidConfigurationException extends IllegalArgumentException {

    private final List<String> problems;

    public InvalidConfigurationException(List<String> problems) {
        super(String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** One message per refused key, in declaration order. */
    public List<String> problems() {
        return problems;
    }

    static String message(String key, Object value, String reason) {
        return "Invalid value " + value + " for configuration " + key + ": " + reason;
    }
}
