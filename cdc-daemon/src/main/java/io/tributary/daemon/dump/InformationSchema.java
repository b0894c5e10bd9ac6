package io.tributary.daemon.dump;

import static io.tributary.daemon.dump.SchemaResult.blob;
import static io.tributary.daemon.dump.SchemaResult.num;
import static io.tributary.daemon.dump.SchemaResult.str;
import static io.tributary.daemon.dump.SchemaResult.time;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.schema.CreateTableText;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaColumn;
import io.tributary.core.schema.SchemaDatabase;
import io.tributary.core.schema.SchemaIndex;
import io.tributary.core.schema.SchemaTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import io.tributary.core.schema.TableName;

/**
 * The {@code information_schema} tables {@code SCHEMATA}, {@code TABLES}, {@code COLUMNS}, {@code STATISTICS} and
 * {@code KEY_COLUMN_USAGE} of the logical schema, with the columns MariaDB 10.11 or MySQL 8.0 has, and the
 * {@code SHOW} statements built on them. The row count ({@code TABLE_ROWS}, {@code Rows}) is the sum of the shards'
 * estimates for the physical tables when the caller has them ({@link ShardSelect#rowEstimates}); the other table
 * statistics (lengths, times) are not known to the daemon: they read as 0 or NULL, as for an empty table. Stateless.
 */
final class InformationSchema {

    static final String NAME = "information_schema";
    private static final String PRIVILEGES = "select,insert,update,references";

    private InformationSchema() {
    }

    /** The rows of {@code information_schema.<table>}, or null when the table is not served. */
    static SchemaResult table(String table, LogicalSchema s, BinlogFlavor f) {
        return table(table, s, f, Map.of());
    }

    /** The same, with {@code TABLES.TABLE_ROWS} from {@code rowEstimates} (0 for a table not in it). */
    static SchemaResult table(String table, LogicalSchema s, BinlogFlavor f, Map<TableName, Long> rowEstimates) {
        return switch (table.toUpperCase(Locale.ROOT)) {
            case "SCHEMATA" -> schemata(s, f);
            case "TABLES" -> tables(s, f, rowEstimates);
            case "COLUMNS" -> columns(s, f, null);
            case "STATISTICS" -> statistics(s, f, null);
            case "KEY_COLUMN_USAGE" -> keyColumnUsage(s);
            default -> null;
        };
    }

    static SchemaResult schemata(LogicalSchema s, BinlogFlavor f) {
        List<SchemaResult.Col> cols = new ArrayList<>(List.of(str("CATALOG_NAME", "CATALOG_NAME", 1536, true),
                str("SCHEMA_NAME", "SCHEMA_NAME", 192, true), str("DEFAULT_CHARACTER_SET_NAME", "DEFAULT_CHARACTER_SET_NAME", 96, true),
                str("DEFAULT_COLLATION_NAME", "DEFAULT_COLLATION_NAME", 192, true), str("SQL_PATH", "SQL_PATH", 1536, false)));
        cols.add(f.isMariaDb() ? str("SCHEMA_COMMENT", "SCHEMA_COMMENT", 3072, true)
                : str("DEFAULT_ENCRYPTION", "DEFAULT_ENCRYPTION", 9, true));
        List<List<String>> rows = new ArrayList<>();
        rows.add(Arrays.asList("def", NAME, "utf8mb3", "utf8mb3_general_ci", null, f.isMariaDb() ? "" : "NO"));
        for (SchemaDatabase d : s.databases().values()) {
            rows.add(Arrays.asList("def", d.name(), d.charset(), d.collation(), null, f.isMariaDb() ? "" : "NO"));
        }
        return new SchemaResult(NAME, "SCHEMATA", cols, rows);
    }

    private static List<SchemaResult.Col> tableColumns(BinlogFlavor f, boolean show) {
        List<SchemaResult.Col> c = new ArrayList<>();
        if (!show) {
            c.add(str("TABLE_CATALOG", "TABLE_CATALOG", 1536, true));
            c.add(str("TABLE_SCHEMA", "TABLE_SCHEMA", 192, true));
        }
        c.add(str(show ? "Name" : "TABLE_NAME", "TABLE_NAME", 192, true));
        if (!show) {
            c.add(str("TABLE_TYPE", "TABLE_TYPE", 192, true));
        }
        c.addAll(List.of(str(show ? "Engine" : "ENGINE", "ENGINE", 192, false),
                num(show ? "Version" : "VERSION", "VERSION", 21, false, true),
                str(show ? "Row_format" : "ROW_FORMAT", "ROW_FORMAT", 30, false),
                num(show ? "Rows" : "TABLE_ROWS", "TABLE_ROWS", 21, false, true),
                num(show ? "Avg_row_length" : "AVG_ROW_LENGTH", "AVG_ROW_LENGTH", 21, false, true),
                num(show ? "Data_length" : "DATA_LENGTH", "DATA_LENGTH", 21, false, true),
                num(show ? "Max_data_length" : "MAX_DATA_LENGTH", "MAX_DATA_LENGTH", 21, false, true),
                num(show ? "Index_length" : "INDEX_LENGTH", "INDEX_LENGTH", 21, false, true),
                num(show ? "Data_free" : "DATA_FREE", "DATA_FREE", 21, false, true),
                num(show ? "Auto_increment" : "AUTO_INCREMENT", "AUTO_INCREMENT", 21, false, true),
                time(show ? "Create_time" : "CREATE_TIME", "CREATE_TIME"),
                time(show ? "Update_time" : "UPDATE_TIME", "UPDATE_TIME"),
                time(show ? "Check_time" : "CHECK_TIME", "CHECK_TIME"),
                str(show ? "Collation" : "TABLE_COLLATION", "TABLE_COLLATION", 192, false),
                num(show ? "Checksum" : "CHECKSUM", "CHECKSUM", 21, false, true),
                str(show ? "Create_options" : "CREATE_OPTIONS", "CREATE_OPTIONS", 6144, false),
                str(show ? "Comment" : "TABLE_COMMENT", "TABLE_COMMENT", 6144, true)));
        if (f.isMariaDb()) {
            c.add(num(show ? "Max_index_length" : "MAX_INDEX_LENGTH", "MAX_INDEX_LENGTH", 21, false, true));
            c.add(str(show ? "Temporary" : "TEMPORARY", "TEMPORARY", 3, false));
        }
        return c;
    }

    private static List<String> tableRow(SchemaTable t, BinlogFlavor f, boolean show, Map<TableName, Long> rowEstimates) {
        List<String> r = new ArrayList<>();
        if (!show) {
            r.add("def");
            r.add(t.name().database());
        }
        r.add(t.name().table());
        if (!show) {
            r.add("BASE TABLE");
        }
        String options = String.join(" ", t.options()).toLowerCase(Locale.ROOT);
        r.addAll(Arrays.asList(t.engine(), "10", "Dynamic", String.valueOf(rowEstimates.getOrDefault(t.name(), 0L)), "0", "16384", "0", "0", "0", null, null, null, null,
                t.collation(), null, options, t.comment() == null ? "" : t.comment()));
        if (f.isMariaDb()) {
            r.add("0");
            r.add("N");
        }
        return r;
    }

    static SchemaResult tables(LogicalSchema s, BinlogFlavor f, Map<TableName, Long> rowEstimates) {
        List<List<String>> rows = new ArrayList<>();
        for (SchemaTable t : s.tables().values()) {
            rows.add(tableRow(t, f, false, rowEstimates));
        }
        return new SchemaResult(NAME, "TABLES", tableColumns(f, false), rows);
    }

    /** {@code SHOW TABLE STATUS FROM db}, {@code Rows} from {@code rowEstimates} (0 for a table not in it). */
    static SchemaResult tableStatus(LogicalSchema s, String db, BinlogFlavor f, Map<TableName, Long> rowEstimates) {
        List<List<String>> rows = new ArrayList<>();
        for (SchemaTable t : s.tablesOf(db)) {
            rows.add(tableRow(t, f, true, rowEstimates));
        }
        return new SchemaResult(NAME, "TABLES", tableColumns(f, true), rows);
    }

    /** {@code SHOW [FULL] TABLES FROM db}: name and type. */
    static SchemaResult tableNames(LogicalSchema s, String db) {
        List<List<String>> rows = new ArrayList<>();
        for (SchemaTable t : s.tablesOf(db)) {
            rows.add(Arrays.asList(t.name().table(), "BASE TABLE"));
        }
        return new SchemaResult(NAME, "TABLE_NAMES", List.of(str("Tables_in_" + db, "TABLE_NAME", 219, true),
                str("Table_type", "TABLE_TYPE", 192, true)), rows);
    }

    static SchemaResult databases(LogicalSchema s) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of(NAME));
        for (String d : s.databases().keySet()) {
            rows.add(List.of(d));
        }
        rows.sort((a, b) -> a.get(0).compareTo(b.get(0)));
        return new SchemaResult(NAME, "SCHEMATA", List.of(str("Database", "SCHEMA_NAME", 192, true)), rows);
    }

    // ------------------------------------------------------------------ columns

    /** {@code information_schema.COLUMNS}, or with {@code show} the columns of {@code SHOW FULL COLUMNS FROM table}. */
    static SchemaResult columns(LogicalSchema s, BinlogFlavor f, SchemaTable only) {
        List<SchemaResult.Col> c = new ArrayList<>(List.of(str("TABLE_CATALOG", "TABLE_CATALOG", 1536, true),
                str("TABLE_SCHEMA", "TABLE_SCHEMA", 192, true), str("TABLE_NAME", "TABLE_NAME", 192, true),
                str("COLUMN_NAME", "COLUMN_NAME", 192, true), num("ORDINAL_POSITION", "ORDINAL_POSITION", 21, true, true),
                blob("COLUMN_DEFAULT", "COLUMN_DEFAULT", 589788, false), str("IS_NULLABLE", "IS_NULLABLE", 9, true),
                str("DATA_TYPE", "DATA_TYPE", 192, true),
                num("CHARACTER_MAXIMUM_LENGTH", "CHARACTER_MAXIMUM_LENGTH", 21, false, true),
                num("CHARACTER_OCTET_LENGTH", "CHARACTER_OCTET_LENGTH", 21, false, true),
                num("NUMERIC_PRECISION", "NUMERIC_PRECISION", 21, false, true),
                num("NUMERIC_SCALE", "NUMERIC_SCALE", 21, false, true),
                num("DATETIME_PRECISION", "DATETIME_PRECISION", 21, false, true),
                str("CHARACTER_SET_NAME", "CHARACTER_SET_NAME", 96, false),
                str("COLLATION_NAME", "COLLATION_NAME", 192, false), blob("COLUMN_TYPE", "COLUMN_TYPE", 589815, true),
                str("COLUMN_KEY", "COLUMN_KEY", 9, true), str("EXTRA", "EXTRA", 240, true),
                str("PRIVILEGES", "PRIVILEGES", 240, true), str("COLUMN_COMMENT", "COLUMN_COMMENT", 3072, true)));
        if (f.isMariaDb()) {
            c.add(str("IS_GENERATED", "IS_GENERATED", 18, true));
            c.add(blob("GENERATION_EXPRESSION", "GENERATION_EXPRESSION", 589788, false));
        } else {
            c.add(blob("GENERATION_EXPRESSION", "GENERATION_EXPRESSION", 589788, true));
            c.add(new SchemaResult.Col("SRS_ID", "SRS_ID", SchemaResult.LONG, 10, SchemaResult.UNSIGNED
                    | SchemaResult.NO_DEFAULT_VALUE | SchemaResult.NUM));
        }
        List<List<String>> rows = new ArrayList<>();
        for (SchemaTable t : only != null ? List.of(only) : s.tables().values()) {
            int pos = 1;
            for (SchemaColumn col : t.columns()) {
                rows.add(columnRow(t, col, pos++, f));
            }
        }
        return new SchemaResult(NAME, "COLUMNS", c, rows);
    }

    private static List<String> columnRow(SchemaTable t, SchemaColumn c, int pos, BinlogFlavor f) {
        String dataType = c.type().equals("json") && f.isMariaDb() ? "longtext" : c.type();
        Long charLength = characterLength(c, dataType);
        Long octets = charLength == null ? null : c.charset() == null ? charLength
                : Math.min(4294967295L, charLength * bytesPerChar(c.charset()));
        if (dataType.endsWith("text") && charLength != null) {
            octets = charLength;
        }
        String[] precision = precision(c);
        List<String> r = new ArrayList<>(Arrays.asList("def", t.name().database(), t.name().table(), c.name(),
                String.valueOf(pos), defaultForColumns(t, c, f), c.nullable() ? "YES" : "NO", dataType,
                charLength == null ? null : String.valueOf(charLength), octets == null ? null : String.valueOf(octets),
                precision[0], precision[1], precision[2], c.charset(), c.collation(), CreateTableText.columnType(c, f),
                key(t, c), extra(c, f), PRIVILEGES, c.comment() == null ? "" : c.comment()));
        if (f.isMariaDb()) {
            r.add("NEVER");
            r.add(null);
        } else {
            r.add("");
            r.add(null);
        }
        return r;
    }

    private static String defaultForColumns(SchemaTable t, SchemaColumn c, BinlogFlavor f) {
        if (c.defaultValue() == null) {
            return c.nullable() && !c.autoIncrement() && f.isMariaDb() ? "NULL" : null;
        }
        return CreateTableText.defaultValue(c.defaultValue(), c, f);
    }

    private static Long characterLength(SchemaColumn c, String dataType) {
        return switch (dataType) {
            case "char", "varchar", "binary", "varbinary" -> Long.parseLong(c.args());
            case "tinytext", "tinyblob" -> 255L;
            case "text", "blob" -> 65535L;
            case "mediumtext", "mediumblob" -> 16777215L;
            case "longtext", "longblob" -> 4294967295L;
            case "json" -> null;
            case "enum", "set" -> {
                long max = 0;
                long total = 0;
                int n = 0;
                for (String v : c.args().split("','")) {
                    long len = v.replace("'", "").length();
                    max = Math.max(max, len);
                    total += len;
                    n++;
                }
                yield dataType.equals("enum") ? max : total + n - 1;
            }
            default -> null;
        };
    }

    private static int bytesPerChar(String charset) {
        return switch (charset) {
            case "utf8mb4", "utf16", "utf32" -> 4;
            case "utf8mb3", "ujis", "eucjpms" -> 3;
            case "ucs2", "gbk", "big5", "sjis", "euckr", "gb2312", "cp932" -> 2;
            default -> 1;
        };
    }

    /** NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION. */
    private static String[] precision(SchemaColumn c) {
        return switch (c.type()) {
            case "tinyint" -> new String[] {"3", "0", null};
            case "smallint" -> new String[] {"5", "0", null};
            case "mediumint" -> new String[] {c.unsigned() ? "8" : "7", "0", null};
            case "int" -> new String[] {"10", "0", null};
            case "bigint" -> new String[] {c.unsigned() ? "20" : "19", "0", null};
            case "decimal" -> withScale(c.args());
            case "float" -> c.args() == null ? new String[] {"12", null, null} : withScale(c.args());
            case "double" -> c.args() == null ? new String[] {"22", null, null} : withScale(c.args());
            case "bit" -> new String[] {c.args(), null, null};
            case "datetime", "timestamp", "time" -> new String[] {null, null, c.args() == null ? "0" : c.args()};
            default -> new String[] {null, null, null};
        };
    }

    private static String[] withScale(String args) {
        String[] a = args.split(",");
        return new String[] {a[0], a.length > 1 ? a[1] : null, null};
    }

    /** COLUMN_KEY: PRI, UNI, MUL or empty. */
    private static String key(SchemaTable t, SchemaColumn c) {
        boolean uni = false;
        boolean mul = false;
        for (SchemaIndex i : t.indexes()) {
            if (i.kind() == SchemaIndex.Kind.PRIMARY && i.columns().stream().anyMatch(p -> p.column().equalsIgnoreCase(c.name()))) {
                return "PRI";
            }
            if (i.columns().get(0).column().equalsIgnoreCase(c.name())) {
                if (i.kind() == SchemaIndex.Kind.UNIQUE && i.columns().size() == 1) {
                    uni = true;
                } else {
                    mul = true;
                }
            }
        }
        return uni ? "UNI" : mul ? "MUL" : "";
    }

    private static String extra(SchemaColumn c, BinlogFlavor f) {
        List<String> e = new ArrayList<>();
        if (c.autoIncrement()) {
            e.add("auto_increment");
        }
        if (!f.isMariaDb() && c.defaultValue() != null && c.defaultValue().kind() == io.tributary.core.schema.ColumnDefault.Kind.EXPRESSION
                && c.defaultValue().text().startsWith("current_timestamp")) {
            e.add("DEFAULT_GENERATED");
        }
        if (c.onUpdate() != null) {
            e.add(f.isMariaDb() ? "on update " + c.onUpdate()
                    : "on update " + CreateTableText.defaultText(io.tributary.core.schema.ColumnDefault.expression(c.onUpdate()), c, f));
        }
        return String.join(" ", e);
    }

    /** {@code SHOW [FULL] COLUMNS FROM t}. */
    static SchemaResult showColumns(SchemaTable t, BinlogFlavor f, boolean full) {
        List<SchemaResult.Col> cols = new ArrayList<>(List.of(str("Field", "COLUMN_NAME", 192, true),
                blob("Type", "COLUMN_TYPE", 589815, true)));
        if (full) {
            cols.add(str("Collation", "COLLATION_NAME", 192, false));
        }
        cols.addAll(List.of(str("Null", "IS_NULLABLE", 9, true), str("Key", "COLUMN_KEY", 9, true),
                blob("Default", "COLUMN_DEFAULT", 589788, false), str("Extra", "EXTRA", 240, true)));
        if (full) {
            cols.add(str("Privileges", "PRIVILEGES", 240, true));
            cols.add(str("Comment", "COLUMN_COMMENT", 3072, true));
        }
        List<List<String>> rows = new ArrayList<>();
        for (SchemaColumn c : t.columns()) {
            String def = c.defaultValue() == null || c.defaultValue().kind() == io.tributary.core.schema.ColumnDefault.Kind.NULL
                    ? null : c.defaultValue().kind() == io.tributary.core.schema.ColumnDefault.Kind.LITERAL
                            ? unquoted(CreateTableText.defaultText(c.defaultValue(), c, f))
                            : CreateTableText.defaultText(c.defaultValue(), c, f);
            List<String> r = new ArrayList<>(Arrays.asList(c.name(), CreateTableText.columnType(c, f)));
            if (full) {
                r.add(c.collation());
            }
            r.addAll(Arrays.asList(c.nullable() ? "YES" : "NO", key(t, c), def, extra(c, f)));
            if (full) {
                r.add(PRIVILEGES);
                r.add(c.comment() == null ? "" : c.comment());
            }
            rows.add(r);
        }
        return new SchemaResult(NAME, "COLUMNS", cols, rows);
    }

    private static String unquoted(String literal) {
        if (literal.length() >= 2 && literal.startsWith("'") && literal.endsWith("'")) {
            return literal.substring(1, literal.length() - 1).replace("''", "'").replace("\\\\", "\\");
        }
        return literal;
    }

    // ------------------------------------------------------------------ indexes

    static SchemaResult statistics(LogicalSchema s, BinlogFlavor f, SchemaTable only) {
        boolean show = only != null;
        List<SchemaResult.Col> c = new ArrayList<>();
        if (!show) {
            c.add(str("TABLE_CATALOG", "TABLE_CATALOG", 1536, true));
            c.add(str("TABLE_SCHEMA", "TABLE_SCHEMA", 192, true));
        }
        c.add(str(show ? "Table" : "TABLE_NAME", "TABLE_NAME", 192, true));
        c.add(num(show ? "Non_unique" : "NON_UNIQUE", "NON_UNIQUE", 1, true, false));
        if (!show) {
            c.add(str("INDEX_SCHEMA", "INDEX_SCHEMA", 192, true));
        }
        c.addAll(List.of(str(show ? "Key_name" : "INDEX_NAME", "INDEX_NAME", 192, true),
                num(show ? "Seq_in_index" : "SEQ_IN_INDEX", "SEQ_IN_INDEX", 2, true, false),
                str(show ? "Column_name" : "COLUMN_NAME", "COLUMN_NAME", 192, true),
                str(show ? "Collation" : "COLLATION", "COLLATION", 3, false),
                num(show ? "Cardinality" : "CARDINALITY", "CARDINALITY", 21, false, false),
                num(show ? "Sub_part" : "SUB_PART", "SUB_PART", 3, false, false),
                str(show ? "Packed" : "PACKED", "PACKED", 30, false), str(show ? "Null" : "NULLABLE", "NULLABLE", 9, true),
                str(show ? "Index_type" : "INDEX_TYPE", "INDEX_TYPE", 48, true),
                str(show ? "Comment" : "COMMENT", "COMMENT", 48, false),
                str(show ? "Index_comment" : "INDEX_COMMENT", "INDEX_COMMENT", 3072, true)));
        if (f.isMariaDb()) {
            c.add(str(show ? "Ignored" : "IGNORED", "IGNORED", 9, true));
        } else {
            c.add(str(show ? "Visible" : "IS_VISIBLE", "IS_VISIBLE", 9, true));
            c.add(blob(show ? "Expression" : "EXPRESSION", "EXPRESSION", 589788, false));
        }
        List<List<String>> rows = new ArrayList<>();
        for (SchemaTable t : only != null ? List.of(only) : s.tables().values()) {
            for (SchemaIndex i : t.indexes()) {
                int seq = 1;
                for (SchemaIndex.Part p : i.columns()) {
                    SchemaColumn col = t.column(p.column()).orElse(null);
                    List<String> r = new ArrayList<>();
                    if (!show) {
                        r.add("def");
                        r.add(t.name().database());
                    }
                    r.add(t.name().table());
                    r.add(i.isUnique() ? "0" : "1");
                    if (!show) {
                        r.add(t.name().database());
                    }
                    boolean fulltext = i.kind() == SchemaIndex.Kind.FULLTEXT;
                    r.addAll(Arrays.asList(i.name(), String.valueOf(seq++), p.column(), fulltext ? null : "A", "0",
                            p.length() == null ? null : String.valueOf(p.length()), null,
                            col != null && col.nullable() ? "YES" : "",
                            fulltext ? "FULLTEXT" : i.kind() == SchemaIndex.Kind.SPATIAL ? "SPATIAL" : "BTREE", "",
                            i.comment() == null ? "" : i.comment()));
                    if (f.isMariaDb()) {
                        r.add("NO");
                    } else {
                        r.add("YES");
                        r.add(null);
                    }
                    rows.add(r);
                }
            }
        }
        return new SchemaResult(NAME, "STATISTICS", c, rows);
    }

    static SchemaResult keyColumnUsage(LogicalSchema s) {
        List<SchemaResult.Col> c = List.of(str("CONSTRAINT_CATALOG", "CONSTRAINT_CATALOG", 1536, true),
                str("CONSTRAINT_SCHEMA", "CONSTRAINT_SCHEMA", 192, true), str("CONSTRAINT_NAME", "CONSTRAINT_NAME", 192, true),
                str("TABLE_CATALOG", "TABLE_CATALOG", 1536, true), str("TABLE_SCHEMA", "TABLE_SCHEMA", 192, true),
                str("TABLE_NAME", "TABLE_NAME", 192, true), str("COLUMN_NAME", "COLUMN_NAME", 192, true),
                num("ORDINAL_POSITION", "ORDINAL_POSITION", 10, true, false),
                num("POSITION_IN_UNIQUE_CONSTRAINT", "POSITION_IN_UNIQUE_CONSTRAINT", 10, false, false),
                str("REFERENCED_TABLE_SCHEMA", "REFERENCED_TABLE_SCHEMA", 192, false),
                str("REFERENCED_TABLE_NAME", "REFERENCED_TABLE_NAME", 192, false),
                str("REFERENCED_COLUMN_NAME", "REFERENCED_COLUMN_NAME", 192, false));
        List<List<String>> rows = new ArrayList<>();
        for (SchemaTable t : s.tables().values()) {
            for (SchemaIndex i : t.indexes()) {
                if (!i.isUnique()) {
                    continue;
                }
                int n = 1;
                for (SchemaIndex.Part p : i.columns()) {
                    rows.add(Arrays.asList("def", t.name().database(), i.name(), "def", t.name().database(),
                            t.name().table(), p.column(), String.valueOf(n++), null, null, null, null));
                }
            }
        }
        return new SchemaResult(NAME, "KEY_COLUMN_USAGE", c, rows);
    }

    /** {@code SHOW CREATE TABLE}. */
    static SchemaResult showCreateTable(SchemaTable t, BinlogFlavor f) {
        return new SchemaResult("", "", List.of(str("Table", "", 192, true), str("Create Table", "", 3072, true)),
                List.of(List.of(t.name().table(), CreateTableText.render(t, f))));
    }

    /** {@code SHOW CREATE DATABASE}. */
    static SchemaResult showCreateDatabase(SchemaDatabase d, BinlogFlavor f) {
        return new SchemaResult("", "", List.of(str("Database", "", 192, true), str("Create Database", "", 3072, true)),
                List.of(List.of(d.name(), CreateTableText.renderDatabase(d, f))));
    }
}
