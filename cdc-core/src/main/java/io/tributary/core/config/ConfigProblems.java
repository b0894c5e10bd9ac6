package io.tributary.core.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects the problems of one snapshot so that all of them are reported together, then refuses it with
 * {@link #throwIfAny}. Owned by the thread validating the snapshot.
 */
public final class ConfigProblems {

    private final List<ConfigProblem> problems = new ArrayList<>();

    /** Records {@code Invalid value V for configuration K: reason}. */
    public void add(String key, Object value, String reason) {
        problems.add(ConfigProblem.invalid(key, value, reason));
    }

    public void add(ConfigProblem problem) {
        problems.add(problem);
    }

    /** Takes over every problem of a refusal found by another owner. */
    public void addAll(ConfigurationException refused) {
        problems.addAll(refused.details());
    }

    /**
     * Converts {@code text} with {@code key} (its default when {@code text} is null); records the problem and
     * returns null when it is refused. Also returns null when there is neither a value nor a default.
     *
     * @param validate whether to check the range now (false: the owner checks it in a later pass)
     */
    public <T> T read(ConfigKey<T> key, String keyName, String text, boolean validate) {
        String v = text != null ? text : key.defaultText();
        if (v == null) {
            return null;
        }
        try {
            T value = key.convert(v);
            if (validate) {
                key.validate(value);
            }
            return value;
        } catch (IllegalArgumentException e) {
            add(keyName, v, e.getMessage());
            return null;
        }
    }

    /** {@link #read(ConfigKey, String, String, boolean)} of a key that is not a list key, range included. */
    public <T> T read(ConfigKey<T> key, String text) {
        return read(key, key.name(), text, true);
    }

    /** Checks a value converted earlier (null: not convertible, skipped) and records the problem. */
    public <T> void check(ConfigKey<T> key, T value) {
        if (value == null) {
            return;
        }
        try {
            key.validate(value);
        } catch (IllegalArgumentException e) {
            add(key.name(), value, e.getMessage());
        }
    }

    public boolean isEmpty() {
        return problems.isEmpty();
    }

    public List<ConfigProblem> list() {
        return List.copyOf(problems);
    }

    /** @throws ConfigurationException listing every problem, when there is one */
    public void throwIfAny() {
        if (!problems.isEmpty()) {
            throw new ConfigurationException(problems);
        }
    }
}
