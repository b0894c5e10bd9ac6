package io.tributary.core.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Byte sizes as configuration writes them: a number of bytes ({@code 104857600}) or a number with a
 * binary unit {@code B, KB, MB, GB, TB} ({@code 100 MB}, {@code 100MB}, {@code 1gb}); 1 KB = 1024 bytes,
 * as Spring's {@code DataSize}.
 */
public final class ByteSize {

    private static final Pattern SIZE = Pattern.compile("(\\d{1,19})\\s*([KMGT]?B)?", Pattern.CASE_INSENSITIVE);

    private ByteSize() {
    }

    /** Parses a size; the exception message is the reason, without the value. */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a byte size (expected e.g. 104857600, 512KB, 100 MB, 2GB)");
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("too large for a byte size");
        }
        String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
        int shift = switch (unit) {
            case "KB" -> 10;
            case "MB" -> 20;
            case "GB" -> 30;
            case "TB" -> 40;
            default -> 0;
        };
        if (shift > 0 && n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("too large for a byte size");
        }
        return n << shift;
    }

    /** The shortest exact form: {@code 100MB}, {@code 1536KB}, {@code 17B}. */
    public static String format(long bytes) {
        String[] units = {"B", "KB", "MB", "GB", "TB"};
        int u = 0;
        long v = bytes;
        while (u < units.length - 1 && v != 0 && (v & 1023) == 0) {
            v >>= 10;
            u++;
        }
        return v + units[u];
    }
}
