package io.tributary.core.naming;

import java.util.List;
import java.util.Objects;

/**
 * Maps physical database and table names to logical ones ({@code shop_03.orders_0007} ->
 * {@code shop.orders}). For each name, the first configured {@link NamingRule} of its scope whose
 * pattern matches the whole name decides; without one, the default strips a trailing {@code _<digits>}
 * (unless disabled); a name nothing matches stays as it is.
 *
 * <p>Immutable and thread-safe.
 */
public final class LogicalNames {

    private final List<NamingRule> rules;
    private final boolean stripTrailingDigits;

    /**
     * @param rules               overrides, tried in order before the default
     * @param stripTrailingDigits whether the default rule applies
     */
    public LogicalNames(List<NamingRule> rules, boolean stripTrailingDigits) {
        this.rules = List.copyOf(rules);
        this.stripTrailingDigits = stripTrailingDigits;
    }

    /** The default: strip a trailing {@code _<digits>} from database and table names. */
    public static LogicalNames defaults() {
        return new LogicalNames(List.of(), true);
    }

    public String database(String physical) {
        return map(NamingRule.Scope.DATABASE, physical);
    }

    public String table(String physical) {
        return map(NamingRule.Scope.TABLE, physical);
    }

    /** The logical table of a physical {@code database.table}. */
    public LogicalTable logicalTable(String database, String table) {
        return new LogicalTable(database(database), table(table));
    }

    private String map(NamingRule.Scope scope, String physical) {
        Objects.requireNonNull(physical, "physical name");
        for (NamingRule r : rules) {
            if (r.scope() == scope) {
                String logical = r.apply(physical);
                if (logical != null) {
                    return logical;
                }
            }
        }
        if (stripTrailingDigits) {
            java.util.regex.Matcher m = NamingRule.TRAILING_DIGITS.matcher(physical);
            if (m.matches()) {
                return m.group(1);
            }
        }
        return physical;
    }

    @Override
    public String toString() {
        return "LogicalNames[rules=" + rules + ", stripTrailingDigits=" + stripTrailingDigits + "]";
    }
}
