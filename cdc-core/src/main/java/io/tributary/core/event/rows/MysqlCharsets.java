package io.tributary.core.event.rows;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Maps MySQL/MariaDB collation ids (as found in TABLE_MAP charset metadata) to Java charsets.
 *
 * <p>Covered: utf8mb4, utf8mb3, latin1 (MySQL's latin1 is Windows-1252), ascii, ucs2, utf16, utf16le,
 * utf32, gbk, gb18030, big5, sjis, cp932, euckr, and binary (63). Ids follow MySQL's
 * {@code information_schema.COLLATIONS} (MariaDB shares the ids below 256). Anything else is unknown and
 * strings stay bytes. Thread-safe.
 */
public final class MysqlCharsets {
    /** The collation id of the {@code binary} pseudo-charset. */
    public static final int BINARY = 63;

    private static final Charset CP1252 = Charset.forName("windows-1252");

    private MysqlCharsets() {
    }

    /** The charset of a collation id; {@code null} for binary or unknown ids. */
    public static Charset forCollation(int id) {
        if (id == 45 || id == 46 || (id >= 224 && id <= 247) || (id >= 255 && id <= 323)) {
            return StandardCharsets.UTF_8;   // utf8mb4
        }
        if (id == 33 || id == 76 || id == 83 || (id >= 192 && id <= 215) || id == 223) {
            return StandardCharsets.UTF_8;   // utf8mb3
        }
        return switch (id) {
            case 5, 8, 15, 31, 47, 48, 49, 94 -> CP1252;
            case 11, 65 -> StandardCharsets.US_ASCII;
            case 35, 90, 159 -> StandardCharsets.UTF_16BE;
            case 54, 55 -> StandardCharsets.UTF_16BE;
            case 56, 62 -> StandardCharsets.UTF_16LE;
            case 60, 61 -> Charset.forName("UTF-32BE");
            case 28, 87 -> Charset.forName("GBK");
            case 248, 249, 250 -> Charset.forName("GB18030");
            case 1, 84 -> Charset.forName("Big5");
            case 13, 88 -> Charset.forName("Shift_JIS");
            case 95, 96 -> Charset.forName("windows-31j");
            case 19, 85 -> Charset.forName("EUC-KR");
            default -> {
                if (id >= 101 && id <= 124) {
                    yield StandardCharsets.UTF_16BE;   // utf16 UCA collations
                }
                if (id >= 128 && id <= 151) {
                    yield StandardCharsets.UTF_16BE;   // ucs2 UCA collations
                }
                if (id >= 160 && id <= 183) {
                    yield Charset.forName("UTF-32BE");   // utf32 UCA collations
                }
                yield null;
            }
        };
    }
}
