package io.tributary.daemon.config;

import java.util.List;

/**
 * The configuration was refused at startup or on a live edit. Carries every problem found, each worded
 * {@code Invalid value V for configuration K: reason}; nothing was applied.
 */
public final class TributaryConfigException extends IllegalArgumentException {

    private final List<String> problems;

    public TributaryConfigException(List<String> problems) {
        super(problems.size() + " configuration problem(s):\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }

    static String message(String key, Object value, String reason) {
        return "Invalid value " + value + " for configuration " + key + ": " + reason;
    }
}
