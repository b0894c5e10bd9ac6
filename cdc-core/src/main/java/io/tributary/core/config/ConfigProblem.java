package io.tributary.core.config;

import java.util.Objects;

/**
 * One refused configuration value: the key, the value as given, and what is allowed. {@link #invalid} is the one
 * place the wording {@code Invalid value V for configuration K: reason} (Kafka's) is built.
 *
 * @param key     the key, with its index for list keys ({@code dump.users[1].name})
 * @param value   the value as given (or as converted, for a range check); may be null
 * @param reason  what is wrong and what is allowed
 * @param message what a user reads
 */
public record ConfigProblem(String key, Object value, String reason, String message) {

    public ConfigProblem {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(message, "message");
    }

    /** {@code Invalid value V for configuration K: reason}. */
    public static ConfigProblem invalid(String key, Object value, String reason) {
        return new ConfigProblem(key, value, reason, "Invalid value " + value + " for configuration " + key + ": "
                + reason);
    }

    /**
     * A condition outside the configuration file that the configured thing does not meet (a shard's binlog
     * settings, an account's privileges); {@code text} is the whole message.
     */
    public static ConfigProblem unmet(String key, String text) {
        return new ConfigProblem(key, null, text, text);
    }

    @Override
    public String toString() {
        return message;
    }
}
