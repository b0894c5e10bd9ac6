package io.tributary.storage.binlog;

import java.util.List;

/**
 * One or more configuration values were refused. The message lists every problem, one per line, each
 * worded {@code Invalid value V for configuration K: reason}.
 */
public final class BinlogConfigException extends IllegalArgumentException {
    private final List<String> problems;

    public BinlogConfigException(List<String> problems) {
        super(String.join("\n", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
