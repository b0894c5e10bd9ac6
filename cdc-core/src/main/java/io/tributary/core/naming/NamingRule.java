package io.tributary.core.naming;

import io.tributary.core.config.ConfigProblem;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One rule mapping physical names to logical ones: when {@code pattern} matches the WHOLE physical name,
 * the logical name is {@code replacement} with {@code $1}, {@code ${name}} group references expanded
 * ({@link Matcher#replaceFirst} syntax).
 *
 * <p>Example: {@code scope=TABLE pattern=t_order_\d{4}_\d{2} replacement=t_order} maps the monthly
 * shards {@code t_order_2024_01} to {@code t_order}, where the default rule would give {@code t_order_2024}.
 *
 * @param scope       whether it applies to database or table names
 * @param pattern     matched against the whole physical name
 * @param replacement the logical name, with group references
 */
public record NamingRule(Scope scope, Pattern pattern, String replacement) {

    /** What a rule renames. */
    public enum Scope {
        DATABASE, TABLE
    }

    /** The default for both scopes: a trailing {@code _<digits>} is stripped ({@code shop_03} -> {@code shop}). */
    public static final Pattern TRAILING_DIGITS = Pattern.compile("(.+?)_\\d+");

    public NamingRule {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(pattern, "pattern");
        Objects.requireNonNull(replacement, "replacement");
    }

    /** A rule from configuration text; a bad regex is refused naming the rule. */
    public static NamingRule of(Scope scope, String regex, String replacement) {
        try {
            return new NamingRule(scope, Pattern.compile(regex), replacement);
        } catch (java.util.regex.PatternSyntaxException e) {
            throw new IllegalArgumentException(ConfigProblem.invalid("naming rule (" + scope + ")", regex,
                    "not a regular expression: " + e.getDescription()).message(), e);
        }
    }

    /** The logical name, or {@code null} when the rule does not match. */
    public String apply(String physical) {
        Matcher m = pattern.matcher(physical);
        if (!m.matches()) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        m.appendReplacement(sb, replacement);
        return sb.toString();
    }

    @Override
    public String toString() {
        return scope + " /" + pattern.pattern() + "/ -> " + replacement;
    }
}
