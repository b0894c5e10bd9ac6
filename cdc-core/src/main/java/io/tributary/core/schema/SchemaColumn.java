package io.tributary.core.schema;

import java.util.Objects;

/**
 * One column of a logical table, normalised so that equal definitions compare equal whatever spelling the DDL used
 * ({@code INTEGER} and {@code int(11)}, {@code BOOL} and {@code tinyint(1)}).
 *
 * @param name          the column name
 * @param type          the base type, lower case: {@code int}, {@code varchar}, {@code enum}, {@code json}
 * @param args          what stands in the type's parentheses, without spaces after commas ({@code 10,2},
 *                      {@code 'x','y'}), or null; integer display widths are not kept (they are rendered per flavor)
 * @param unsigned      {@code UNSIGNED}
 * @param zerofill      {@code ZEROFILL}
 * @param charset       the character set of a character column (resolved: never null for one), else null
 * @param collation     its collation (resolved), else null
 * @param nullable      whether NULL is allowed
 * @param defaultValue  the default, or null for none
 * @param autoIncrement {@code AUTO_INCREMENT}
 * @param onUpdate      the {@code ON UPDATE} expression ({@code current_timestamp(3)}), or null
 * @param comment       the comment's value (unquoted), or null
 * @param extra         anything else of the definition, as written (a generated column's {@code AS (...)},
 *                      {@code INVISIBLE}, a {@code CHECK}), or null
 */
public record SchemaColumn(String name, String type, String args, boolean unsigned, boolean zerofill, String charset,
        String collation, boolean nullable, ColumnDefault defaultValue, boolean autoIncrement, String onUpdate,
        String comment, String extra) {

    public SchemaColumn {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
    }

    /** Whether the type holds characters (and so has a character set). */
    public boolean isCharacterType() {
        return SqlTypes.isCharacter(type);
    }

    public SchemaColumn withName(String newName) {
        return new SchemaColumn(newName, type, args, unsigned, zerofill, charset, collation, nullable, defaultValue,
                autoIncrement, onUpdate, comment, extra);
    }

    public SchemaColumn withNullable(boolean n) {
        return new SchemaColumn(name, type, args, unsigned, zerofill, charset, collation, n, defaultValue, autoIncrement,
                onUpdate, comment, extra);
    }

    public SchemaColumn withDefault(ColumnDefault d) {
        return new SchemaColumn(name, type, args, unsigned, zerofill, charset, collation, nullable, d, autoIncrement,
                onUpdate, comment, extra);
    }

    public SchemaColumn withCharset(String cs, String co) {
        return new SchemaColumn(name, type, args, unsigned, zerofill, cs, co, nullable, defaultValue, autoIncrement,
                onUpdate, comment, extra);
    }
}
