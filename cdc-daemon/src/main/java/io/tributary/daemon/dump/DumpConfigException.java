package io.tributary.daemon.dump;

import java.util.List;

/**
 * The {@code dump.*} configuration was refused. Carries every problem found, each worded
 * {@code Invalid value V for configuration K: reason}.
 */
public final class DumpConfigException extends IllegalArgumentException {
    private final List<String> problems;

    public DumpConfigException(List<String> problems) {
        super(String.join("\n", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
