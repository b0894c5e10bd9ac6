package io.tributary.core.config;

import java.util.List;

/**
 * A configuration snapshot was refused, at startup or on a live edit; nothing was applied. Carries every problem
 * found, not only the first. The message is the problem's own for one problem, otherwise a count and one line
 * per problem.
 */
public final class ConfigurationException extends IllegalArgumentException {

    private final List<ConfigProblem> details;

    public ConfigurationException(List<ConfigProblem> problems) {
        super(messageOf(problems));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a refusal needs at least one problem");
        }
        this.details = List.copyOf(problems);
    }

    /** One refused value. */
    public static ConfigurationException invalid(String key, Object value, String reason) {
        return new ConfigurationException(List.of(ConfigProblem.invalid(key, value, reason)));
    }

    /** Every problem's message, in the order found. */
    public List<String> problems() {
        return details.stream().map(ConfigProblem::message).toList();
    }

    /** Every problem with its key, value and reason, in the order found. */
    public List<ConfigProblem> details() {
        return details;
    }

    /** {@code N configuration problem(s):} and the problems, one per line. */
    public String listing() {
        return listing(problems());
    }

    private static String messageOf(List<ConfigProblem> problems) {
        return problems.size() == 1 ? problems.get(0).message()
                : listing(problems.stream().map(ConfigProblem::message).toList());
    }

    private static String listing(List<String> messages) {
        return messages.size() + " configuration problem(s):\n  - " + String.join("\n  - ", messages);
    }
}
