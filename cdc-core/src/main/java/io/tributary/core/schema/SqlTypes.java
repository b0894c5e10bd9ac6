package io.tributary.core.schema;

import io.tributary.core.event.BinlogFlavor;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the schema needs to know of MySQL/MariaDB column types and character sets: type aliases, integer display
 * widths, default collations per flavor. Stateless.
 */
public final class SqlTypes {

    private static final Map<String, String> ALIASES = Map.ofEntries(Map.entry("integer", "int"),
            Map.entry("int4", "int"), Map.entry("int1", "tinyint"), Map.entry("int2", "smallint"),
            Map.entry("int3", "mediumint"), Map.entry("middleint", "mediumint"), Map.entry("int8", "bigint"),
            Map.entry("dec", "decimal"), Map.entry("numeric", "decimal"), Map.entry("fixed", "decimal"),
            Map.entry("real", "double"), Map.entry("double precision", "double"), Map.entry("float8", "double"),
            Map.entry("float4", "float"), Map.entry("character", "char"), Map.entry("character varying", "varchar"),
            Map.entry("nchar", "char"), Map.entry("nvarchar", "varchar"), Map.entry("national char", "char"),
            Map.entry("national varchar", "varchar"), Map.entry("long varchar", "mediumtext"),
            Map.entry("long", "mediumtext"), Map.entry("long varbinary", "mediumblob"));

    /** MariaDB's display width of an integer type without one: signed, unsigned. */
    private static final Map<String, int[]> WIDTHS = Map.of("tinyint", new int[] {4, 3}, "smallint", new int[] {6, 5},
            "mediumint", new int[] {9, 8}, "int", new int[] {11, 10}, "bigint", new int[] {20, 20});

    private static final Set<String> CHARACTER = Set.of("char", "varchar", "tinytext", "text", "mediumtext", "longtext",
            "enum", "set");
    private static final Set<String> NUMERIC = Set.of("tinyint", "smallint", "mediumint", "int", "bigint", "decimal",
            "float", "double", "bit", "year");
    private static final Set<String> BLOB_LIKE = Set.of("tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob",
            "mediumblob", "longblob");

    private static final Map<String, String> DEFAULT_COLLATIONS = Map.ofEntries(
            Map.entry("utf8mb4", "utf8mb4_general_ci"), Map.entry("utf8mb3", "utf8mb3_general_ci"),
            Map.entry("latin1", "latin1_swedish_ci"), Map.entry("ascii", "ascii_general_ci"),
            Map.entry("binary", "binary"), Map.entry("ucs2", "ucs2_general_ci"), Map.entry("utf16", "utf16_general_ci"),
            Map.entry("utf16le", "utf16le_general_ci"), Map.entry("utf32", "utf32_general_ci"),
            Map.entry("latin2", "latin2_general_ci"), Map.entry("cp1251", "cp1251_general_ci"),
            Map.entry("cp1250", "cp1250_general_ci"), Map.entry("gbk", "gbk_chinese_ci"),
            Map.entry("gb2312", "gb2312_chinese_ci"), Map.entry("big5", "big5_chinese_ci"),
            Map.entry("sjis", "sjis_japanese_ci"), Map.entry("ujis", "ujis_japanese_ci"),
            Map.entry("euckr", "euckr_korean_ci"), Map.entry("greek", "greek_general_ci"),
            Map.entry("hebrew", "hebrew_general_ci"), Map.entry("koi8r", "koi8r_general_ci"));

    private SqlTypes() {
    }

    /** The type's canonical name: lower case, aliases resolved. */
    public static String canonical(String type) {
        String t = type.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        return ALIASES.getOrDefault(t, t);
    }

    public static boolean isInteger(String type) {
        return WIDTHS.containsKey(type);
    }

    public static boolean isCharacter(String type) {
        return CHARACTER.contains(type);
    }

    public static boolean isNumeric(String type) {
        return NUMERIC.contains(type);
    }

    /** Text and blob types: MySQL prints no {@code DEFAULT NULL} for them. */
    public static boolean isBlobLike(String type) {
        return BLOB_LIKE.contains(type);
    }

    /** The most bytes one character of the character set takes. */
    public static int maxBytesPerChar(String charset) {
        return switch (charset(charset)) {
            case "utf8mb4", "utf16", "utf16le", "utf32" -> 4;
            case "utf8mb3", "ujis", "eucjpms" -> 3;
            case "ucs2", "gbk", "big5", "sjis", "euckr", "gb2312", "cp932" -> 2;
            default -> 1;
        };
    }

    /**
     * The text type {@code CONVERT TO CHARACTER SET} gives a text column, so it holds as many characters as before:
     * {@code text} in latin1 becomes {@code mediumtext} in utf8mb4.
     */
    public static String textTypeFor(String type, String fromCharset, String toCharset) {
        List<String> order = List.of("tinytext", "text", "mediumtext", "longtext");
        long[] capacity = {255L, 65535L, 16777215L, 4294967295L};
        int i = order.indexOf(type);
        if (i < 0) {
            return type;
        }
        long chars = capacity[i] / maxBytesPerChar(fromCharset);
        long needed = chars * maxBytesPerChar(toCharset);
        for (int k = i; k < order.size(); k++) {
            if (capacity[k] >= needed) {
                return order.get(k);
            }
        }
        return "longtext";
    }

    /** MariaDB's display width of an integer type. */
    public static int displayWidth(String type, boolean unsigned) {
        return WIDTHS.get(type)[unsigned ? 1 : 0];
    }

    /** The canonical name of a character set ({@code utf8} is {@code utf8mb3}). */
    public static String charset(String name) {
        String c = name.toLowerCase(Locale.ROOT);
        return c.equals("utf8") ? "utf8mb3" : c;
    }

    private static final Map<String, Integer> COLLATION_IDS = Map.ofEntries(
            Map.entry("big5_chinese_ci", 1), Map.entry("latin2_czech_cs", 2), Map.entry("latin1_german1_ci", 5),
            Map.entry("latin1_swedish_ci", 8), Map.entry("latin2_general_ci", 9), Map.entry("ascii_general_ci", 11),
            Map.entry("ujis_japanese_ci", 12), Map.entry("sjis_japanese_ci", 13), Map.entry("cp1251_bulgarian_ci", 14),
            Map.entry("latin1_danish_ci", 15), Map.entry("hebrew_general_ci", 16), Map.entry("euckr_korean_ci", 19),
            Map.entry("gb2312_chinese_ci", 24), Map.entry("greek_general_ci", 25), Map.entry("cp1250_general_ci", 26),
            Map.entry("gbk_chinese_ci", 28), Map.entry("latin1_german2_ci", 31), Map.entry("utf8mb3_general_ci", 33),
            Map.entry("ucs2_general_ci", 35), Map.entry("latin1_bin", 47), Map.entry("latin1_general_ci", 48),
            Map.entry("latin1_general_cs", 49), Map.entry("cp1251_bin", 50), Map.entry("cp1251_general_ci", 51),
            Map.entry("utf16_general_ci", 54), Map.entry("utf16_bin", 55), Map.entry("utf16le_general_ci", 56),
            Map.entry("utf32_general_ci", 60), Map.entry("utf32_bin", 61), Map.entry("binary", 63),
            Map.entry("ascii_bin", 65), Map.entry("utf8mb3_bin", 83), Map.entry("utf8mb4_general_ci", 45),
            Map.entry("utf8mb4_bin", 46), Map.entry("utf8mb3_unicode_ci", 192), Map.entry("utf8mb4_unicode_ci", 224),
            Map.entry("utf8mb4_unicode_520_ci", 246), Map.entry("utf8mb4_0900_ai_ci", 255),
            Map.entry("utf8mb4_0900_as_cs", 278), Map.entry("utf8mb4_0900_bin", 309));

    /**
     * The id a server gives a collation (its TABLE_MAP charset metadata, {@code information_schema.COLLATIONS.ID};
     * MariaDB and MySQL share the ids of these), or -1 for one not listed here.
     */
    public static int collationId(String collation) {
        return collation == null ? -1 : COLLATION_IDS.getOrDefault(collation(collation), -1);
    }

    /** The default collation of a character set on the flavor. */
    public static String defaultCollation(String charset, BinlogFlavor flavor) {
        String cs = charset(charset);
        if (cs.equals("utf8mb4") && !flavor.isMariaDb()) {
            return "utf8mb4_0900_ai_ci";
        }
        return DEFAULT_COLLATIONS.getOrDefault(cs, cs + "_general_ci");
    }

    /** The character set a collation belongs to. */
    public static String charsetOfCollation(String collation) {
        String c = collation.toLowerCase(Locale.ROOT);
        if (c.equals("binary")) {
            return "binary";
        }
        int u = c.indexOf('_');
        String cs = u < 0 ? c : c.substring(0, u);
        return charset(cs);
    }

    /** A collation name as servers print it ({@code utf8_bin} is {@code utf8mb3_bin}). */
    public static String collation(String name) {
        String c = name.toLowerCase(Locale.ROOT);
        return c.startsWith("utf8_") ? "utf8mb3_" + c.substring(5) : c;
    }
}
